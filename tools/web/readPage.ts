import type { BlobStore, SourceRecord } from "../../sources/types.ts";
import { ToolError } from "../toolErrors.ts";
import { classifyContent } from "./classifyContent.ts";
import { decodeText } from "./decodeText.ts";
import { extractReadable } from "./extractReadable.ts";
import { type FetchLimits, type Fetched, fetchLimited, formatBytes } from "./fetchLimited.ts";
import { rememberValidators, validatorsFor } from "./pageValidators.ts";
import type { CachedPage } from "./pageCache.ts";
import { DEFAULT_HOST_INTERVAL_MS, throughHostGate } from "./hostGate.ts";
import { checkRobots } from "./robotsTxt.ts";

async function politely(url: string, limits: FetchLimits, blobs: BlobStore, signal?: AbortSignal, headers?: Record<string, string>) {
  const host = new URL(url).host;
  const interval = limits.hostIntervalMs ?? DEFAULT_HOST_INTERVAL_MS;
  await checkRobots(url, limits, blobs, signal, (request) => throughHostGate(host, interval, request));
  return throughHostGate(host, interval, () => fetchLimited(url, limits, signal, { headers }));
}

/**
 * Fetches a page and keeps it as a source: raw bytes and the extracted text
 * both stored as blobs. HTML is read to its article (tables as Markdown) with
 * the page's links listed after it; text is kept as it is; a PDF is stored for
 * document_read; other binary content is refused.
 */
export async function readPage(
  url: string,
  normalizedUrl: string,
  options: {
    limits: FetchLimits;
    blobs: BlobStore;
    now: () => Date;
    signal?: AbortSignal;
    /** What is really requested, when not `url` as asked (which the source records); see requestUrl. */
    requestUrl?: string;
  },
): Promise<CachedPage> {
  const target = options.requestUrl ?? url;
  const { limits } = options;
  // The open web is fetched politely: robots.txt obeyed, two requests at once per host, starts spaced. The mapped corpus hosts are local files.
  if (limits.mapUrl?.(target) !== undefined) return pageOf(await fetchLimited(target, limits, options.signal), url, normalizedUrl, options);
  // Asked again (another run, or after the run's cache lost it): a conditional request, and a 304 keeps the stored page.
  const known = validatorsFor(options.blobs, target);
  const fetched = await politely(target, limits, options.blobs, options.signal, known?.headers);
  if (fetched.status === 304 && known) return { ...known.page, source: { ...known.page.source, fetchedAt: options.now().toISOString() } };
  const page = await pageOf(fetched, url, normalizedUrl, options);
  rememberValidators(options.blobs, target, fetched.headers, page);
  return page;
}

/** A fetched response as a page kept as a source (its bytes and text stored as blobs). */
async function pageOf(fetched: Fetched, url: string, normalizedUrl: string, options: { blobs: BlobStore; now: () => Date }): Promise<CachedPage> {
  const { status, contentType, bytes } = fetched;
  // Not redirected, the page is the one asked for, however the request was spelled.
  const finalUrl = fetched.redirects === 0 ? url : fetched.finalUrl;
  if (status >= 400) {
    throw new ToolError(`${url} answered HTTP ${status}${status === 404 || status === 410 ? " (no such page)" : ""}; nothing was read. Check the URL, or search for the page again.`);
  }
  const kind = classifyContent(contentType, bytes);
  if (kind === "binary") {
    throw new ToolError(
      `${url} is ${contentType.split(";")[0] || "binary content"} (${formatBytes(bytes.byteLength)}), not text: web_fetch reads web pages and text (HTML, plain text, JSON, XML, CSV) and stores PDFs for document_read. Look for an HTML or text version.`,
    );
  }
  const fetchedAt = options.now().toISOString();
  const base = { url, normalizedUrl, finalUrl, status, contentType, fetchedAt, bytes: bytes.byteLength };
  const rawSha256 = await options.blobs.put(bytes);
  const ownUrls = finalUrl === url ? [url] : [url, finalUrl];
  if (kind === "pdf") {
    const notice = [
      `${url} is a PDF (${formatBytes(bytes.byteLength)}), not a web page, so web_fetch does not read it.`,
      `It is stored as blob sha256 ${rawSha256}: open it with document_read, giving {"sha256": "${rawSha256}"}.`,
    ].join("\n");
    const source: SourceRecord = { kind: "document", ...base, rawSha256, textSha256: await options.blobs.put(new TextEncoder().encode(notice)) };
    return { source, title: "", links: ownUrls, notice };
  }
  const decoded = decodeText(bytes, contentType);
  let title = "";
  let text = decoded;
  let links: string[] = [];
  if (kind === "html") {
    const page = await extractReadable(decoded, finalUrl);
    title = page.title;
    links = page.links.map((l) => l.url);
    const listed = page.links.map((l) => `- ${l.text ? `[${l.text.replace(/[[\]]/g, "")}](${l.url})` : l.url}`);
    text = page.text + (listed.length ? `\n\n## Links on the page\n\n${listed.join("\n")}` : "");
  }
  const textSha256 = await options.blobs.put(new TextEncoder().encode(text));
  return { source: { kind: "web_page", ...base, rawSha256, textSha256 }, title, links: [...ownUrls, ...links] };
}
