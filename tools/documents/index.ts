export { csvPreview, parseDelimited, type CsvPreview } from "./csvPreview.ts";
export { CONTENT_TYPES, DOCUMENT_FORMATS, detectFormat, type DocumentFormat } from "./detectFormat.ts";
export { createDocumentTools } from "./documentTools.ts";
export { extractDocument, type ExtractedDocument, type PdfCoverage } from "./extractDocument.ts";
export { extractPdfPages, type PdfPages } from "./extractPdfPages.ts";
export { htmlToText } from "./htmlToText.ts";
export { formatPageList, parsePageRange } from "./parsePageRange.ts";
export { untrustedBlock } from "./untrustedBlock.ts";
export { describeWindow, MAX_OUTPUT_CHARS, windowText, type TextWindow } from "./windowText.ts";
