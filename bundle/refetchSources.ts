import type { RecordedEvent } from "../events/types.ts";
import type { AddressPolicy } from "../tools/web/checkAddress.ts";
import { fetchLimited } from "../tools/web/fetchLimited.ts";
import { ToolError } from "../tools/toolErrors.ts";
import { ofType } from "./bundleRun.ts";
import { sha256Of } from "./manifest.ts";

export interface Refetched {
  url: string;
  recorded: string;
  /** unchanged / changed: the bytes served now against the recorded raw sha256; unreachable: no answer; refused: the address policy forbids it. */
  state: "unchanged" | "changed" | "unreachable" | "refused";
  detail?: string;
}

/**
 * `verify DIR --refetch`: each web source fetched again and its bytes hashed
 * against the recorded raw sha256. The only network access verify makes, and
 * only when asked; a changed page says the world moved, not that the bundle was
 * altered, so this reports and does not fail. A bundle is someone else's file:
 * its URLs are fetched as web_fetch fetches (tools/web/fetchLimited.ts: the
 * address policy on every address and redirect, a size limit), so a URL naming
 * this machine, a private network or a cloud metadata address is refused, not
 * requested, unless the host allows loopback or private addresses.
 */
export async function refetchSources(events: readonly RecordedEvent[], policy: AddressPolicy = {}, timeoutMs = 15_000): Promise<Refetched[]> {
  const seen = new Map<string, string>();
  for (const e of ofType(events, "tool_completed")) for (const s of e.data.sources ?? []) if (/^https?:\/\//.test(s.url) && !seen.has(s.url)) seen.set(s.url, s.rawSha256);
  const out: Refetched[] = [];
  for (const [url, recorded] of seen) {
    try {
      const fetched = await fetchLimited(url, { ...policy, timeoutMs });
      const now = sha256Of(fetched.bytes);
      out.push({ url, recorded, state: now === recorded ? "unchanged" : "changed", ...(now !== recorded && { detail: `HTTP ${fetched.status}, now ${now}` }) });
    } catch (e) {
      const refused = e instanceof ToolError && /^Refused to fetch /.test(e.message);
      out.push({ url, recorded, state: refused ? "refused" : "unreachable", detail: (e as Error).message });
    }
  }
  return out;
}
