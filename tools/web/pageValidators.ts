import type { BlobStore } from "../../sources/types.ts";
import type { CachedPage } from "./pageCache.ts";

/** Pages remembered with their validators; the oldest is forgotten past this many. */
const MAX_PAGES = 2_000;

type Known = Map<string, { etag?: string; lastModified?: string; page: CachedPage }>;

/** By blob store: a revalidated page's blobs must be in the store the run reads them from. */
const stores = new WeakMap<BlobStore, Known>();
const pagesOf = (blobs: BlobStore): Known => stores.get(blobs) ?? (stores.set(blobs, new Map()), stores.get(blobs)!);

/**
 * The conditional request headers for a URL fetched before by this process
 * (If-None-Match from its ETag, If-Modified-Since from its Last-Modified), and
 * the page they revalidate; undefined when none is known.
 */
export function validatorsFor(blobs: BlobStore, url: string): { headers: Record<string, string>; page: CachedPage } | undefined {
  const known = pagesOf(blobs).get(url);
  if (!known) return undefined;
  const headers: Record<string, string> = {};
  if (known.etag) headers["if-none-match"] = known.etag;
  if (known.lastModified) headers["if-modified-since"] = known.lastModified;
  return { headers, page: known.page };
}

/** Keeps a 200 page's ETag and Last-Modified with the page, when it has either. */
export function rememberValidators(blobs: BlobStore, url: string, headers: Headers, page: CachedPage): void {
  const pages = pagesOf(blobs);
  const etag = headers.get("etag") ?? undefined;
  const lastModified = headers.get("last-modified") ?? undefined;
  if (page.source.status !== 200 || (!etag && !lastModified)) return;
  pages.delete(url);
  if (pages.size >= MAX_PAGES) pages.delete(pages.keys().next().value!);
  pages.set(url, { etag, lastModified, page });
}
