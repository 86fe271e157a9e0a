import { tableToMarkdown } from "./tableToMarkdown.ts";

const SKIP = new Set(["script", "style", "noscript", "template", "svg", "iframe", "head", "button", "select", "textarea", "canvas", "object", "embed"]);
const BLOCK = new Set([
  "p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "blockquote", "figure", "figcaption",
  "form", "fieldset", "address", "dl", "dt", "dd", "ul", "ol", "details", "summary", "center", "body", "html", "caption",
  "tr", "tbody", "thead", "tfoot", "hr",
]);

/**
 * Readable text of an element: paragraphs apart, headings marked with #, list
 * items with -, data tables as Markdown tables, preformatted text kept as it is.
 * Links become their text (the page's links are listed apart).
 */
export function htmlToText(root: Element): string {
  const parts: string[] = [];
  walk(root, parts);
  return tidy(parts.join(""));
}

function walk(node: Node, out: string[]): void {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) {
      out.push((child.nodeValue ?? "").replace(/\s+/g, " "));
      continue;
    }
    if (child.nodeType !== 1) continue;
    const el = child as Element;
    const tag = el.tagName.toLowerCase();
    if (SKIP.has(tag) || el.getAttribute("hidden") !== null || el.getAttribute("aria-hidden") === "true") continue;
    if (tag === "br") out.push("\n");
    else if (/^h[1-6]$/.test(tag)) out.push(`\n\n${"#".repeat(Number(tag[1]))} ${inline(el)}\n\n`);
    else if (tag === "li") {
      out.push("\n- ");
      walk(el, out);
      out.push("\n");
    } else if (tag === "pre") out.push(`\n\n${FENCE}\n${(el.textContent ?? "").replace(/\n+$/, "")}\n${FENCE}\n\n`);
    else if (tag === "table") {
      const markdown = tableToMarkdown(el);
      if (markdown) out.push(`\n\n${markdown}\n\n`);
      else {
        out.push("\n\n");
        walk(el, out);
        out.push("\n\n");
      }
    } else if (tag === "td" || tag === "th") {
      walk(el, out);
      out.push(" ");
    } else if (tag === "img") {
      const alt = el.getAttribute("alt")?.trim();
      if (alt) out.push(` ${alt} `);
    } else if (BLOCK.has(tag)) {
      out.push("\n\n");
      walk(el, out);
      out.push("\n\n");
    } else walk(el, out);
  }
}

function inline(el: Element): string {
  const parts: string[] = [];
  walk(el, parts);
  return parts.join("").replace(/\s+/g, " ").trim();
}

/** Marks preformatted text, whose spaces and line breaks tidy() leaves alone. */
const FENCE = "```";

/** Spaces collapsed and lines trimmed outside preformatted blocks; at most one blank line between blocks. */
function tidy(text: string): string {
  const pieces = text.split(/(\n```\n[\s\S]*?\n```\n)/);
  return pieces
    .map((piece, i) =>
      i % 2 === 1
        ? piece
        : piece
            .split("\n")
            .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
            .join("\n"),
    )
    .join("")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
