import { readOrDamage } from "../core/damage.ts";
import { refuseDamagedRun } from "../db/quarantine.ts";
import type { Database } from "../db/openDatabase.ts";
import { NotFoundError } from "../core/errors.ts";
import { type EventRow, metadataOf, rowToEvent } from "./rowToEvent.ts";
import { executorStreamId, listRunStreams } from "./runStreams.ts";
import type { RecordedEvent } from "./types.ts";
import { type RunProblem, referenceProblems } from "./runProblems.ts";
import { readStoredRows, verifyStreamRows } from "./verifyStream.ts";

export { type RunProblem, problemAt } from "./runProblems.ts";

/** One stream as found: its event count, last stored version and hash (0 and null when it has no events). */
export interface StreamFound {
  streamId: string;
  count: number;
  version: number;
  hash: string | null;
}

export interface RunInspection {
  runId: string;
  streams: StreamFound[];
  /** Parsed events by stream, for what the hash chain cannot say alone. */
  events: Map<string, RecordedEvent[]>;
  /** The rows exactly as stored (payloads not upcast), by stream: what an export writes and its hashes cover. */
  rows: Map<string, EventRow[]>;
  problems: RunProblem[];
}

/**
 * Reads every stream of a run and checks it: each stream's hash chain (as
 * verifyStream), then the references between streams, which the chains alone
 * cannot check. A parent's delegate intent names its Child, so a Child stream
 * deleted whole (with its head) is missed; the Child's admission names its
 * parent and the delegate call; a consumed handoff names the Child's handoff
 * event and, since handoffHash, its chain hash, so a Child rewritten after the
 * handoff was consumed is found. Streams reached only through a reference are
 * read too. A read that fails on damaged files throws DamagedStoreError.
 */
export async function inspectRun(database: Database, runId: string): Promise<RunInspection> {
  // Found damaged at open: named by its stream and version, not read through the hole.
  refuseDamagedRun(database, runId);
  return readOrDamage(database.location, `run ${runId}`, async () => {
    const queue = await listRunStreams(database, runId);
    if (queue.length === 0) throw new NotFoundError(`no run ${runId} in the log`);
    const streams: StreamFound[] = [];
    const events = new Map<string, RecordedEvent[]>();
    const stored = new Map<string, EventRow[]>();
    const problems: RunProblem[] = [];
    const seen = new Set(queue);
    for (let i = 0; i < queue.length; i++) {
      const streamId = queue[i];
      const rows = await readStoredRows(database, streamId);
      stored.set(streamId, rows);
      const last = rows.at(-1);
      streams.push({ streamId, count: rows.length, version: last?.stream_version ?? 0, hash: last?.hash ?? null });
      if (rows.length === 0) continue;
      const chain = await verifyStreamRows(database, streamId, rows);
      if (!chain.ok) problems.push({ streamId, ...chain.firstBad, reason: chain.reason });
      const parsed = rows.flatMap(parseOrSkip);
      events.set(streamId, parsed);
      const first = rows[0];
      const firstRun = metadataOf(first).runId;
      if (firstRun !== runId) {
        problems.push(at(first, `belongs to run ${String(firstRun)}, but run ${runId} delegated to it`));
      }
      for (const e of parsed) {
        // A delegation names its Child; a review request names its Reviewer.
        const child = e.type === "tool_called" ? e.data.childExecutorId : e.type === "review_requested" ? e.data.reviewerExecutorId : undefined;
        if (child && !seen.has(executorStreamId(child))) {
          seen.add(executorStreamId(child));
          queue.push(executorStreamId(child));
        }
      }
    }
    problems.push(...referenceProblems(events).toSorted((a, b) => (a.globalPosition ?? 0) - (b.globalPosition ?? 0)));
    return { runId, streams, events, rows: stored, problems };
  });
}

function parseOrSkip(row: EventRow): RecordedEvent[] {
  try {
    return [rowToEvent(row)];
  } catch {
    // An unparseable row fails its chain or its schema; the chain check names it.
    return [];
  }
}

const at = (row: EventRow, reason: string): RunProblem => ({
  streamId: row.stream_id,
  streamVersion: row.stream_version,
  eventId: row.event_id,
  globalPosition: Number(row.global_position),
  reason,
});

