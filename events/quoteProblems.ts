import type { Database } from "../db/openDatabase.ts";
import { storedBlobs } from "../db/sourceBlobs.ts";
import type { RunProblem } from "./runProblems.ts";
import { quoteProblemsIn, quotedBlobs } from "./quoteProblemsIn.ts";
import type { RecordedEvent } from "./types.ts";

export { quoteProblemsIn } from "./quoteProblemsIn.ts";

/** quoteProblemsIn over the run's stored blobs. */
export async function quoteProblems(database: Database, events: Map<string, RecordedEvent[]>): Promise<RunProblem[]> {
  const texts = new Map<string, string | null>();
  const decoder = new TextDecoder();
  const blobs = storedBlobs(database.db);
  for (const sha256 of quotedBlobs(events)) {
    const [row] = await blobs.read([sha256]);
    texts.set(sha256, row ? decoder.decode(row.bytes) : null);
  }
  return quoteProblemsIn(events, texts);
}
