import type { Readability } from "@mozilla/readability";
import { htmlToText } from "./htmlToText.ts";
import { type PageLink, pageLinks } from "./pageLinks.ts";
import { cellText, tableToMarkdown } from "./tableToMarkdown.ts";

export interface ReadablePage {
  title: string;
  /** The readable text: the article Readability finds, then data tables it dropped, as Markdown. */
  text: string;
  links: PageLink[];
  /** Whether Readability found an article (else the whole body was read). */
  article: boolean;
}

/** Tables Readability dropped that are appended after the article, and their size: enough for fee tables, bounded against navigation boxes. */
const MAX_EXTRA_TABLES = 20;
const MAX_EXTRA_TABLE_CHARS = 20_000;

/**
 * HTML to readable text: data tables are read from the raw page first (as
 * Markdown), then Readability (on linkedom) finds the article; a table it
 * dropped is appended after it, so figures in tables survive. A page where
 * Readability finds nothing is read whole.
 */
export async function extractReadable(html: string, pageUrl: string): Promise<ReadablePage> {
  // Imported on first use: a process that reads no page never loads the DOM and Readability.
  const [{ parseHTML }, { Readability }] = await Promise.all([import("linkedom"), import("@mozilla/readability")]);
  const raw = parseHTML(html).document as unknown as Document;
  const links = pageLinks(raw, pageUrl);
  const tables = [...raw.querySelectorAll("table")].flatMap((t) => {
    const markdown = tableToMarkdown(t);
    return markdown ? [{ markdown, signature: signatureOf(t) }] : [];
  });
  const rawTitle = raw.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() ?? "";

  // Readability changes the document it reads, so it gets a parse of its own.
  const forArticle = parseHTML(html).document as unknown as Document;
  let article: ReturnType<Readability<string>["parse"]> = null;
  try {
    article = new Readability(forArticle).parse();
  } catch {
    article = null;
  }
  let text: string;
  if (article?.content) {
    const content = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document as unknown as Document;
    text = htmlToText(content.body);
    const kept = new Set([...content.querySelectorAll("table")].map(signatureOf));
    const dropped = tables.filter((t) => !kept.has(t.signature));
    text += extraTables(dropped.map((t) => t.markdown));
  } else {
    text = raw.body ? htmlToText(raw.body) : "";
  }
  return { title: article?.title?.trim() || rawTitle, text, links, article: Boolean(article?.content) };
}

/** A table's cells as text, to recognise it after Readability rewrote the markup around it. */
function signatureOf(table: Element): string {
  return [...table.querySelectorAll("td, th")].map(cellText).join("\u0001");
}

function extraTables(markdowns: string[]): string {
  const kept: string[] = [];
  let chars = 0;
  for (const m of markdowns) {
    if (kept.length >= MAX_EXTRA_TABLES || chars + m.length > MAX_EXTRA_TABLE_CHARS) break;
    kept.push(m);
    chars += m.length;
  }
  if (kept.length === 0) return "";
  const more = markdowns.length - kept.length;
  const note = more > 0 ? `\n\n(${more} more table${more > 1 ? "s" : ""} on the page not shown.)` : "";
  return `\n\n## Tables on the page\n\n${kept.join("\n\n")}${note}`;
}
