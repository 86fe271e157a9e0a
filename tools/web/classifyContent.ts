/** How web_fetch treats a body: read as a page, read as text, hand to document_read, or refuse. */
export type ContentClass = "html" | "text" | "pdf" | "binary";

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|ecmascript|x-javascript|csv|x-ndjson|ld\+json|rss\+xml|atom\+xml)$|application\/[\w.+-]+\+(json|xml)$)/;

/** By the declared type, checked against the bytes: a PDF or binary body is recognised whatever the server says. */
export function classifyContent(contentType: string, bytes: Uint8Array): ContentClass {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/pdf" || startsWith(bytes, "%PDF-")) return "pdf";
  if (looksBinary(bytes)) return "binary";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (TEXT_TYPES.test(type)) return "text";
  if (type === "" || type === "application/octet-stream") {
    const head = new TextDecoder("latin1").decode(bytes.subarray(0, 512)).trimStart().toLowerCase();
    return head.startsWith("<!doctype html") || head.startsWith("<html") ? "html" : "text";
  }
  return "binary";
}

function startsWith(bytes: Uint8Array, magic: string): boolean {
  return magic.split("").every((c, i) => bytes[i] === c.charCodeAt(0));
}

/** NUL bytes early on mean binary (images, archives); text in UTF-16 would have them too, and is rare on the web. */
function looksBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 1024);
  if (head[0] === 0xff && head[1] === 0xfe) return false;
  if (head[0] === 0xfe && head[1] === 0xff) return false;
  return head.includes(0);
}
