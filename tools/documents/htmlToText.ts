
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "HEAD"]);
const BLOCK = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "BLOCKQUOTE", "BR", "DD", "DIV", "DL", "DT", "FIGCAPTION", "FIGURE", "FOOTER", "FORM",
  "H1", "H2", "H3", "H4", "H5", "H6", "HEADER", "HR", "LI", "MAIN", "NAV", "OL", "P", "PRE", "SECTION", "TABLE", "TR", "UL",
]);

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

/** An HTML file's visible text with its title, blocks on their own lines, table cells split by " | ". */
export async function htmlToText(html: string): Promise<{ title: string; text: string }> {
  // Imported on first use: a process that reads no HTML never loads the DOM (a few hundred modules).
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(html);
  const parts: string[] = [];
  const walk = (node: DomNode) => {
    if (node.nodeType === 3) {
      parts.push((node.textContent ?? "").replace(/\s+/g, " "));
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) return;
    const block = BLOCK.has(name);
    if (block) parts.push("\n");
    for (const child of Array.from(node.childNodes)) walk(child);
    if (name === "TD" || name === "TH") parts.push(" | ");
    if (block) parts.push("\n");
  };
  walk((document.body ?? document.documentElement) as unknown as DomNode);
  const text = parts
    .join("")
    .split("\n")
    .map((line) => line.replace(/\s+/g, " ").replace(/\s*\|\s*$/, "").trim())
    .filter((line, i, lines) => line !== "" || (i > 0 && lines[i - 1] !== ""))
    .join("\n")
    .trim();
  return { title: (document.title ?? "").trim(), text };
}
