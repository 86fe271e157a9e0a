import { admissionBlobs } from "./admissionBlobs.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * Every blob a run's events name (each source's raw bytes and text, each artifact; what each executor was
 * offered and its bound profile), with what it holds, first naming first.
 */
export function namedBlobs(events: readonly RecordedEvent[]): Map<string, { event: RecordedEvent; what: string }> {
  const named = new Map<string, { event: RecordedEvent; what: string }>();
  const name = (sha256: string, event: RecordedEvent, what: string) => {
    if (!named.has(sha256)) named.set(sha256, { event, what });
  };
  for (const e of events) {
    for (const [sha256, what] of admissionBlobs(e)) name(sha256, e, what);
    if (e.type === "turn") {
      // Server-side searches' result lists (ARIADNE_SEARCH=anthropic), stored with the turn.
      for (const { source: s } of e.data.searches ?? []) {
        if (!s) continue;
        name(s.rawSha256, e, `the raw bytes of source ${s.url}`);
        name(s.textSha256, e, `the extracted text of source ${s.url}`);
      }
      continue;
    }
    if (e.type !== "tool_completed") continue;
    for (const s of e.data.sources ?? []) {
      name(s.rawSha256, e, `the raw bytes of source ${s.url}`);
      name(s.textSha256, e, `the extracted text of source ${s.url}`);
    }
    for (const a of e.data.artifacts) name(a.sha256, e, `artifact ${a.id} (${a.path})`);
  }
  return named;
}
