import { ToolError } from "../toolErrors.ts";
import { type AddressPolicy, refusedAddress } from "./checkAddress.ts";
import { fetchPinned } from "./fetchPinned.ts";

export interface FetchLimits extends AddressPolicy {
  /**
   * The fetch to use (tests inject one); default fetchPinned, which connects
   * only to an address the policy checked. An injected fetch gets the policy
   * checked on a resolution of its own before each request.
   */
  fetch?: typeof fetch;
  /**
   * Where a URL is really fetched from, when not from itself: maps the corpus
   * hosts (https://pages.corpus.test/…) to a local server, so the recorded URL
   * stays the corpus URL. A mapped URL is trusted configuration: its address is not checked.
   */
  mapUrl?: (url: string) => string | undefined;
  /** Milliseconds for the whole fetch, redirects and body included (default 20 s). */
  timeoutMs?: number;
  /** Largest body read, in bytes (default 10 MB). */
  maxBytes?: number;
  /** Redirects followed (default 5); one more is refused. */
  maxRedirects?: number;
  /** The least time between two requests to one host (default 1 s; tools/web/hostGate.ts); mapped corpus URLs are not paced. */
  hostIntervalMs?: number;
  /** Who is asking, for the sites' logs: a User-Agent naming Ariadne and how to reach its operator (ARIADNE_CONTACT). */
  userAgent?: string;
}

/** The User-Agent sent without a configured one; with a contact (a URL or mailto), sites know whom to tell. */
export const userAgentOf = (contact?: string): string => `Ariadne/1.0 (research agent${contact ? `; +${contact}` : ""})`;

/** One request's own headers (a search API's key, a conditional request's validators), beside the accept and user-agent. */
export interface RequestHeaders {
  headers?: Record<string, string>;
  accept?: string;
}

export interface Fetched {
  /** After redirects, as the run knows it (the corpus URL, not the local server's). */
  finalUrl: string;
  status: number;
  contentType: string;
  bytes: Uint8Array;
  redirects: number;
  /** The final response's headers (Retry-After, ETag, Last-Modified). */
  headers: Headers;
}

export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

/**
 * GETs a URL with the limits a research run needs: a deadline, a size limit,
 * at most `maxRedirects` redirects (followed here, each target checked), and
 * no private or loopback address unless allowed. Failures are ToolErrors that
 * say what to do next.
 */
export async function fetchLimited(url: string, limits: FetchLimits, signal?: AbortSignal, request: RequestHeaders = {}): Promise<Fetched> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = limits.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const abort = signal ? AbortSignal.any([signal, deadline]) : deadline;
  const pinned = limits.fetch ? undefined : fetchPinned(limits);
  let current = url;
  try {
    for (let redirects = 0; ; redirects++) {
      const mapped = limits.mapUrl?.(current);
      if (mapped === undefined && !pinned) {
        const refused = await refusedAddress(new URL(current).hostname, limits);
        if (refused) throw new ToolError(`Refused to fetch ${current}: ${refused}. Fetch a public http(s) URL instead.`);
      }
      // A mapped URL is trusted configuration (the corpus server): the platform's fetch, unchecked.
      const doFetch = limits.fetch ?? (mapped === undefined ? pinned! : fetch);
      const get = () =>
        doFetch(mapped ?? current, {
          redirect: "manual",
          signal: abort,
          headers: {
            accept: request.accept ?? "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.5",
            "user-agent": limits.userAgent ?? userAgentOf(),
            ...request.headers,
          },
        });
      // A kept-alive connection the server closed as the request went out fails before any answer; a GET is asked once more, on a new one.
      const response = await get().catch((error: unknown) => (!abort.aborted && closedBeforeAnswer(error) ? get() : Promise.reject(error)));
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (redirects >= maxRedirects) {
          throw new ToolError(`Stopped at ${current}: more than ${maxRedirects} redirects. The page keeps redirecting; try another source.`);
        }
        // Relative to the URL the run knows, so a mapped host's redirects stay on the corpus host.
        current = new URL(location, current).href;
        if (!/^https?:$/.test(new URL(current).protocol)) throw new ToolError(`${url} redirects to ${current}, which is not an http(s) URL.`);
        continue;
      }
      const contentType = response.headers.get("content-type") ?? "";
      const bytes = await readBody(response, maxBytes, current);
      return { finalUrl: current, status: response.status, contentType, bytes, redirects, headers: response.headers };
    }
  } catch (error) {
    if (deadline.aborted && !signal?.aborted) {
      throw new ToolError(`Fetching ${url} timed out after ${Math.round(timeoutMs / 1000)} s. The site is slow or not answering; try again later or use another source.`);
    }
    if (error instanceof ToolError || signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = (error as { code?: string }).code;
    throw new ToolError(`Could not fetch ${current}: ${cause?.code ?? cause?.message ?? code ?? (error as Error).message}. Check the URL, or try another source.`);
  }
}

/**
 * A connection reset or closed by the server before it answered (Node names
 * the code, Deno only says it): what a server's keep-alive timeout racing the
 * next request on a reused connection looks like, or a server dropping a
 * connection as it went out. Refusals and failed lookups are not this: they
 * would fail the same way again.
 */
function closedBeforeAnswer(error: unknown): boolean {
  // The platform's fetch puts the socket's error in `cause`; node:http (the pinned fetch) throws it as it is.
  const { code, message } = (error as { cause?: { code?: string; message?: string } }).cause ?? (error as { code?: string; message?: string });
  if (["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"].includes(code ?? "")) return true;
  return /connection reset by peer|connection closed before message completed|broken pipe/i.test(message ?? "");
}

/** The body, refused as soon as it passes maxBytes (a declared length too big is refused before reading). */
async function readBody(response: Response, maxBytes: number, url: string): Promise<Uint8Array> {
  const tooBig = () => new ToolError(`${url} is larger than the ${formatBytes(maxBytes)} size limit; it was not read. Look for a smaller page (a summary, or one section).`);
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooBig();
  }
  if (!response.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooBig();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return bytes;
}

export const formatBytes = (n: number): string => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) ? 1 : 0)} MB` : `${Math.round(n / 1024)} KB`);
