/**
 * Bytes to text by the charset the server declared, else the one the page
 * declares in its first bytes (a BOM, <meta charset>), else UTF-8. An unknown
 * label falls back to UTF-8 rather than failing the fetch.
 */
export function decodeText(bytes: Uint8Array, contentType: string): string {
  const label = charsetOf(contentType) ?? sniffCharset(bytes) ?? "utf-8";
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

const charsetOf = (contentType: string): string | undefined => /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];

function sniffCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  // Meta tags must come early in the document (HTML spec: within the first 1024 bytes); look a little further.
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 4096));
  return /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
}
