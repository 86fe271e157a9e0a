import type { SourceKind } from "../../sources/types.ts";
import { ToolError } from "../toolErrors.ts";
import { csvPreview } from "./csvPreview.ts";
import { CONTENT_TYPES, type DocumentFormat } from "./detectFormat.ts";
import { extractPdfPages } from "./extractPdfPages.ts";
import { htmlToText } from "./htmlToText.ts";
import { formatPageList } from "./parsePageRange.ts";
import { textUsability } from "./usableText.ts";

export interface PdfCoverage {
  total_pages: number;
  /** e.g. "3-5" */
  pages_read: string;
  pages_read_count: number;
  /** Pages read whose text layer is empty (scanned images, figures): their content was not seen. */
  pages_without_text: number[];
  /** Pages read whose text is mostly not letters or digits, or undecodable glyphs (textUsability): not read either. */
  pages_without_usable_text: number[];
}

export interface ExtractedDocument {
  format: DocumentFormat;
  kind: SourceKind;
  contentType: string;
  /** The whole extracted text of what was read (PDF pages marked `[page N]`); what textSha256 stores. */
  text: string;
  /** One line for the model on what was read: pages, rows, title. */
  summary: string;
  coverage?: PdfCoverage;
  table?: { rows: number; columns: number };
}

/** A document's text in the shape the model reads and evidence cites. */
export async function extractDocument(bytes: Uint8Array, format: DocumentFormat, pages?: string): Promise<ExtractedDocument> {
  if (pages !== undefined && format !== "pdf") {
    throw new ToolError(`pages only applies to PDFs and this document is ${format}; omit pages and use offset to read further.`);
  }
  const contentType = CONTENT_TYPES[format];
  if (format === "pdf") {
    const pdf = await extractPdfPages(bytes, pages);
    const empty = pdf.pages.filter((p) => p.text === "").map((p) => p.page);
    const usability = new Map(pdf.pages.map((p) => [p.page, textUsability(p.text)]));
    const noisy = pdf.pages.filter((p) => p.text !== "" && !usability.get(p.page)!.usable).map((p) => p.page);
    const pageText = (p: { page: number; text: string }) => {
      if (p.text === "") return "(no text layer on this page: it may be a scanned image or a figure; its content was not read)";
      const u = usability.get(p.page)!;
      if (!u.usable) {
        return `(no usable text layer on this page: its text is ${Math.round(100 * u.readableShare)}% letters and digits${u.undecodableShare ? `, ${Math.round(100 * u.undecodableShare)}% undecodable glyphs` : ""}, the glyph noise of a font without a usable character map; its content was not read)`;
      }
      return p.text;
    };
    const text = pdf.pages.map((p) => `[page ${p.page}]\n${pageText(p)}`).join("\n\n");
    const coverage: PdfCoverage = {
      total_pages: pdf.totalPages,
      pages_read: formatPageList(pdf.pages.map((p) => p.page)),
      pages_read_count: pdf.pages.length,
      pages_without_text: empty,
      pages_without_usable_text: noisy,
    };
    const summary =
      `coverage: pages ${coverage.pages_read} read (${coverage.pages_read_count} of ${coverage.total_pages} pages); ` +
      `pages with no text layer: ${empty.length ? formatPageList(empty) : "none"}; ` +
      `pages with no usable text layer (mostly not letters, or undecodable glyphs): ${noisy.length ? `${formatPageList(noisy)} (${noisy.length} of ${coverage.pages_read_count})` : "none"}`;
    return { format, kind: "document", contentType, text, summary, coverage };
  }
  const raw = new TextDecoder().decode(bytes).replace(/^\uFEFF/, "");
  if (format === "html") {
    const { title, text } = await htmlToText(raw);
    return { format, kind: "document", contentType, text, summary: `html page${title ? ` titled "${title}"` : ""}` };
  }
  if (format === "csv") {
    const preview = csvPreview(raw);
    return {
      format,
      kind: "data",
      contentType,
      text: preview.text,
      summary: `table: ${preview.rows} rows x ${preview.columns} columns`,
      table: { rows: preview.rows, columns: preview.columns },
    };
  }
  return { format, kind: "document", contentType, text: raw, summary: `${format} text` };
}
