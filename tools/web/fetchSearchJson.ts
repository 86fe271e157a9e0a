import { setTimeout as wait } from "node:timers/promises";
import { ToolError } from "../toolErrors.ts";
import { type FetchLimits, fetchLimited } from "./fetchLimited.ts";

/** How a provider is asked: its name and the variable that configures it (error messages name both). */
export interface ProviderRequest {
  provider: string;
  /** The variable that configures the provider's key or address, for a 401 or 403. */
  variable: string;
  headers?: Record<string, string>;
  /** The longest Retry-After (or 5xx pause) waited before one retry; longer is a tool error saying when to try again. Default 5 s. */
  maxWaitMs?: number;
}

/**
 * GETs a search provider's JSON through the web tools' one fetch path
 * (fetchLimited: the address policy, deadline, size limit and User-Agent).
 * A 429 with a short Retry-After, or a 5xx, is retried once after the wait;
 * every other failure is a ToolError that says what happened and what to do.
 * Returns the parsed JSON and the response's bytes as they came.
 */
export async function fetchSearchJson(url: string, limits: FetchLimits, request: ProviderRequest, signal?: AbortSignal): Promise<{ json: unknown; raw: Uint8Array; retried: boolean }> {
  const maxWaitMs = request.maxWaitMs ?? 5_000;
  const { provider } = request;
  for (let attempt = 0; ; attempt++) {
    const fetched = await fetchLimited(url, limits, signal, { accept: "application/json", headers: request.headers });
    const { status } = fetched;
    if (status === 401 || status === 403) {
      throw new ToolError(`${provider} refused the search (HTTP ${status}): check ${request.variable}${status === 403 ? " and what the key's plan allows" : ""}. Search is unavailable until the host fixes it; use the URLs you have, or report the gap.`);
    }
    if (status === 429 || status >= 500) {
      const waitMs = status === 429 ? retryAfterMs(fetched.headers.get("retry-after")) : 1_000;
      if (attempt === 0 && waitMs !== null && waitMs <= maxWaitMs) {
        await wait(waitMs, undefined, { signal });
        continue;
      }
      const when = waitMs === null ? "later" : `in ${Math.ceil(waitMs / 1000)} s`;
      throw new ToolError(
        status === 429
          ? `${provider} is rate limiting this host (HTTP 429${attempt ? ", again after one retry" : ""}); try web_search again ${when}, or work with the results you have.`
          : `${provider} failed (HTTP ${status}${attempt ? ", again after one retry" : ""}); try web_search again later, or work with the results you have.`,
      );
    }
    if (status >= 400) throw new ToolError(`${provider} answered HTTP ${status} to the search; rephrase the query, or report the gap.`);
    try {
      return { json: JSON.parse(new TextDecoder().decode(fetched.bytes)), raw: fetched.bytes, retried: attempt > 0 };
    } catch {
      throw new ToolError(`${provider} answered with malformed JSON (${fetched.bytes.byteLength} bytes of ${fetched.contentType || "unknown type"}); the search service is misconfigured. Try again later, or report the gap.`);
    }
  }
}

/** Retry-After in milliseconds (seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}
