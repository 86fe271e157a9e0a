import type { Database } from "../db/openDatabase.ts";
import { storedBlobs } from "../db/sourceBlobs.ts";
import { verifyBlobs } from "../sources/verifyBlobs.ts";
import { type RunProblem, problemAt } from "./inspectRun.ts";
import { namedBlobs } from "./namedBlobs.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * Every blob a run's events name (each source's raw bytes and extracted text,
 * each artifact; what each executor was offered at admission and its bound
 * profile) must be stored and hash to its name: a claim is followed to these
 * bytes, a request is rebuilt from them. A missing or changed blob is named by its hash, at the first
 * event that names it.
 */
export async function blobProblems(database: Database, events: Map<string, RecordedEvent[]>): Promise<RunProblem[]> {
  const namedBy = namedBlobs([...events.values()].flat());
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
