import type { RecordedEvent } from "../events/types.ts";
import { ofType } from "./bundleRun.ts";
import { sha256Of } from "./manifest.ts";

export interface Refetched {
  url: string;
  recorded: string;
  /** unchanged / changed: the bytes served now against the recorded raw sha256; unreachable: no answer. */
  state: "unchanged" | "changed" | "unreachable";
  detail?: string;
}

/**
 * `verify DIR --refetch`: each web source fetched again and its bytes hashed
 * against the recorded raw sha256. The only network access verify makes, and
 * only when asked; a changed page says the world moved, not that the bundle was
 * altered, so this reports and does not fail.
 */
export async function refetchSources(events: readonly RecordedEvent[], timeoutMs = 15_000): Promise<Refetched[]> {
  const seen = new Map<string, string>();
  for (const e of ofType(events, "tool_completed")) for (const s of e.data.sources ?? []) if (/^https?:\/\//.test(s.url) && !seen.has(s.url)) seen.set(s.url, s.rawSha256);
  const out: Refetched[] = [];
  for (const [url, recorded] of seen) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
      const now = sha256Of(new Uint8Array(await response.arrayBuffer()));
      out.push({ url, recorded, state: now === recorded ? "unchanged" : "changed", ...(now !== recorded && { detail: `HTTP ${response.status}, now ${now}` }) });
    } catch (e) {
      out.push({ url, recorded, state: "unreachable", detail: (e as Error).message });
    }
  }
  return out;
}
