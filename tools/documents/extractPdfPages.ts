import type { getDocumentProxy } from "unpdf";
import { ToolError } from "../toolErrors.ts";
import { parsePageRange } from "./parsePageRange.ts";

export interface PdfPages {
  totalPages: number;
  /** The pages read, in order, with their text as pdf.js lays it out. */
  pages: { page: number; text: string }[];
}

/** The text layer of the chosen pages (all when `pages` is absent), page by page. */
export async function extractPdfPages(bytes: Uint8Array, pages?: string): Promise<PdfPages> {
  // Imported on first use: pdf.js is loaded only by a process that reads a PDF.
  const { getDocumentProxy: open } = await import("unpdf");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // A copy: pdf.js may transfer (detach) the buffer it is given. Verbosity 0 keeps font warnings off stdout.
    pdf = await open(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw new ToolError(`The PDF could not be opened (${(error as Error).message}); it may be damaged or encrypted. Report it as a gap.`);
  }
  try {
    const wanted = pages === undefined ? Array.from({ length: pdf.numPages }, (_, i) => i + 1) : parsePageRange(pages, pdf.numPages);
    const read: PdfPages["pages"] = [];
    for (const page of wanted) {
      const content = await (await pdf.getPage(page)).getTextContent();
      const text = content.items
        .map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : ""))
        .join("");
      read.push({ page, text: text.replace(/[^\S\n]+/g, " ").replace(/ ?\n ?/g, "\n").trim() });
    }
    return { totalPages: pdf.numPages, pages: read };
  } finally {
    await pdf.destroy();
  }
}
