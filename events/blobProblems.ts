import type { Database } from "../db/openDatabase.ts";
import { storedBlobs } from "../db/sourceBlobs.ts";
import { verifyBlobs } from "../sources/verifyBlobs.ts";
import { admissionBlobs } from "./admissionBlobs.ts";
import { type RunProblem, problemAt } from "./inspectRun.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * Every blob a run's events name (each source's raw bytes and extracted text,
 * each artifact; what each executor was offered at admission and its bound
 * profile) must be stored and hash to its name: a claim is followed to these
 * bytes, a request is rebuilt from them. A missing or changed blob is named by its hash, at the first
 * event that names it.
 */
export async function blobProblems(database: Database, events: Map<string, RecordedEvent[]>): Promise<RunProblem[]> {
  const namedBy = new Map<string, { event: RecordedEvent; what: string }>();
  const name = (sha256: string, event: RecordedEvent, what: string) => {
    if (!namedBy.has(sha256)) namedBy.set(sha256, { event, what });
  };
  for (const stream of events.values()) {
    for (const e of stream) {
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
  }
  if (namedBy.size === 0) return [];
  const check = await verifyBlobs(storedBlobs(database.db), namedBy.keys());
  const problems: RunProblem[] = [];
  for (const sha256 of check.missing) {
    const { event, what } = namedBy.get(sha256)!;
    problems.push(problemAt(event, `blob ${sha256} (${what}) is missing from the blob store`));
  }
  for (const sha256 of check.changed) {
    const { event, what } = namedBy.get(sha256)!;
    problems.push(problemAt(event, `blob ${sha256} (${what}) was changed: its stored bytes no longer hash to ${sha256}`));
  }
  return problems.toSorted((a, b) => (a.globalPosition ?? 0) - (b.globalPosition ?? 0));
}
