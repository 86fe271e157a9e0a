import { ToolError } from "../toolErrors.ts";

export const DOCUMENT_FORMATS = ["pdf", "html", "markdown", "csv", "text"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export const CONTENT_TYPES: Record<DocumentFormat, string> = {
  pdf: "application/pdf",
  html: "text/html",
  markdown: "text/markdown",
  csv: "text/csv",
  text: "text/plain",
};

const BY_EXTENSION: Record<string, DocumentFormat> = {
  pdf: "pdf", html: "html", htm: "html", xhtml: "html", md: "markdown", markdown: "markdown",
  csv: "csv", tsv: "csv", txt: "text", text: "text", json: "text", log: "text",
};

/**
 * What the bytes are: the file name's extension when it has a known one, else
 * their first bytes (a blob has no name). Binary files other than PDFs are
 * refused: shown as text they would only fill the context.
 */
export function detectFormat(bytes: Uint8Array, name?: string): DocumentFormat {
  const head = new TextDecoder().decode(bytes.subarray(0, 4096)).replace(/^\uFEFF/, "");
  if (head.includes("%PDF-")) return "pdf";
  const extension = name?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  if (extension && BY_EXTENSION[extension]) return BY_EXTENSION[extension];
  if (bytes.subarray(0, 8192).includes(0)) {
    throw new ToolError("These bytes are binary and not a PDF; document_read reads PDF, HTML, Markdown, CSV and text. Process other files with compute.");
  }
  const start = head.trimStart().slice(0, 200).toLowerCase();
  if (start.startsWith("<!doctype html") || start.startsWith("<html") || /<body[\s>]/i.test(head)) return "html";
  if (looksDelimited(head)) return "csv";
  if (/^#{1,6} \S/m.test(head) || /^\|.*\|\s*$/m.test(head)) return "markdown";
  return "text";
}

// Several lines with the same number (>0) of commas or tabs: a table, not prose.
function looksDelimited(head: string): boolean {
  const lines = head.split(/\r?\n/).slice(0, 6).filter((l) => l.trim() !== "");
  if (lines.length < 3) return false;
  return [",", "\t"].some((d) => {
    const counts = lines.slice(0, -1).map((l) => l.split(d).length - 1);
    return counts[0]! > 0 && counts.every((c) => c === counts[0]);
  });
}
