import { readOrDamage } from "../core/damage.ts";
import type { Database } from "../db/openDatabase.ts";
import { NotFoundError } from "../core/errors.ts";
import { rowToEvent } from "./rowToEvent.ts";
import { executorStreamId, listRunStreams } from "./runStreams.ts";
import type { RecordedEvent } from "./types.ts";
import { type StoredRow, readStoredRows, verifyStreamRows } from "./verifyStream.ts";

/** Something wrong with a run, at the first event it concerns (null where that event is gone). */
export interface RunProblem {
  streamId: string;
  streamVersion: number | null;
  eventId: string | null;
  globalPosition: number | null;
  reason: string;
}

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
  return readOrDamage(database.location, `run ${runId}`, async () => {
    const queue = await listRunStreams(database, runId);
    if (queue.length === 0) throw new NotFoundError(`no run ${runId} in the log`);
    const streams: StreamFound[] = [];
    const events = new Map<string, RecordedEvent[]>();
    const problems: RunProblem[] = [];
    const seen = new Set(queue);
    for (let i = 0; i < queue.length; i++) {
      const streamId = queue[i];
      const rows = await readStoredRows(database, streamId);
      const last = rows.at(-1);
      streams.push({ streamId, count: rows.length, version: last?.stream_version ?? 0, hash: last?.hash ?? null });
      if (rows.length === 0) continue;
      const chain = await verifyStreamRows(database, streamId, rows);
      if (!chain.ok) problems.push({ streamId, ...chain.firstBad, reason: chain.reason });
      const parsed = rows.flatMap(parseOrSkip);
      events.set(streamId, parsed);
      const first = rows[0];
      if ((first.metadata as { runId?: unknown }).runId !== runId) {
        problems.push(at(first, `belongs to run ${String((first.metadata as { runId?: unknown }).runId)}, but run ${runId} delegated to it`));
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
    return { runId, streams, events, problems };
  });
}

/** Delegations, admissions and consumed handoffs must agree across streams. */
function referenceProblems(events: Map<string, RecordedEvent[]>): RunProblem[] {
  const problems: RunProblem[] = [];
  const stream = (executorId: string) => events.get(executorStreamId(executorId)) ?? [];
  for (const own of events.values()) {
    const admitted = own[0]?.type === "executor_admitted" ? (own[0] as RecordedEvent<"executor_admitted">) : null;
    if (!admitted) continue;
    const executorId = admitted.metadata.executorId;
    const answered = new Set(own.flatMap((e) => ("toolUseId" in e.data && e.type !== "tool_called" ? [e.data.toolUseId] : [])));

    for (const e of own) {
      if (e.type === "tool_called" && e.data.childExecutorId) {
        const child = stream(e.data.childExecutorId)[0];
        if (!child) {
          // An intent with no outcome yet may have died before admitting its Child; one with an outcome did admit it.
          if (answered.has(e.data.toolUseId)) problems.push(problemAt(e, `delegate call ${e.data.toolUseId} names Child ${e.data.childExecutorId}, whose stream ${executorStreamId(e.data.childExecutorId)} is missing`));
        } else if (child.type !== "executor_admitted" || child.data.parentExecutorId !== executorId || child.data.parentToolUseId !== e.data.toolUseId) {
          problems.push(problemAt(child, `the stream of Child ${e.data.childExecutorId} does not start with its admission by ${executorId} for delegate call ${e.data.toolUseId}`));
        }
      }
      if (e.type === "review_requested") {
        const reviewer = stream(e.data.reviewerExecutorId)[0];
        const delivered = own.some((d) => d.type === "review_delivered" && d.data.reviewId === e.data.reviewId);
        if (!reviewer) {
          // A request whose Reviewer was never admitted (the process died in between) is delivered never.
          if (delivered) problems.push(problemAt(e, `review ${e.data.reviewId} names Reviewer ${e.data.reviewerExecutorId}, whose stream ${executorStreamId(e.data.reviewerExecutorId)} is missing`));
        } else if (reviewer.type !== "executor_admitted" || reviewer.data.parentExecutorId !== executorId) {
          problems.push(problemAt(reviewer, `the stream of Reviewer ${e.data.reviewerExecutorId} does not start with its admission by ${executorId} for review ${e.data.reviewId}`));
        }
      }
      if (e.type === "handoff_consumed") {
        const child = stream(e.data.childExecutorId);
        const handoff = child.find((c) => c.eventId === e.data.handoffEventId) ?? own.find((c) => c.eventId === e.data.handoffEventId);
        if (child.length === 0) {
          problems.push(problemAt(e, `consumed the handoff of Child ${e.data.childExecutorId}, whose stream ${executorStreamId(e.data.childExecutorId)} is missing`));
        } else if (!handoff) {
          problems.push(problemAt(e, `names handoff event ${e.data.handoffEventId}, which is not in the stream of Child ${e.data.childExecutorId}`));
        } else if (e.data.handoffHash && handoff.hash !== e.data.handoffHash) {
          problems.push(problemAt(e, `consumed handoff event ${e.data.handoffEventId} with hash ${e.data.handoffHash}, but the Child's stream now holds ${handoff.hash} there: it was rewritten after the handoff was consumed`));
        }
      }
    }

    const parentId = admitted.data.parentExecutorId;
    if (parentId) {
      const parent = stream(parentId);
      const call = parent.find((p) =>
        admitted.data.parentToolUseId === null
          ? p.type === "review_requested" && p.data.reviewerExecutorId === executorId
          : p.type === "tool_called" && p.data.toolUseId === admitted.data.parentToolUseId && p.data.childExecutorId === executorId,
      );
      const what = admitted.data.parentToolUseId === null ? "a review request" : `delegate call ${admitted.data.parentToolUseId}`;
      if (parent.length === 0) problems.push(problemAt(admitted, `admitted by executor ${parentId}, whose stream ${executorStreamId(parentId)} is missing`));
      else if (!call) problems.push(problemAt(admitted, `admitted for ${what} of ${parentId}, which the parent's stream does not hold`));
    }
  }
  return problems;
}

function parseOrSkip(row: StoredRow): RecordedEvent[] {
  try {
    return [rowToEvent(row)];
  } catch {
    // An unparseable row fails its chain or its schema; the chain check names it.
    return [];
  }
}

const at = (row: StoredRow, reason: string): RunProblem => ({
  streamId: row.stream_id,
  streamVersion: row.stream_version,
  eventId: row.event_id,
  globalPosition: Number(row.global_position),
  reason,
});

/** A problem located at an event that is still there. */
export const problemAt = (e: RecordedEvent, reason: string): RunProblem => ({
  streamId: e.streamId,
  streamVersion: e.streamVersion,
  eventId: e.eventId,
  globalPosition: e.globalPosition,
  reason,
});
