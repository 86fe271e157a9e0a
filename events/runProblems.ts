import { type StreamHead, rootHashOf } from "./rootHash.ts";
import { isFinalEvent } from "./finalEvents.ts";
import { executorStreamId, isExecutorStream } from "./streamIds.ts";
import type { RecordedEvent } from "./types.ts";

/**
 * What a run's streams must satisfy beyond their own chains, checked over
 * events already read: from the database (verifyRun) or from an exported
 * bundle's events.jsonl (bundle/verifyBundle.ts), so this file reaches no database.
 */

/** Something wrong with a run, at the first event it concerns (null where that event is gone). */
export interface RunProblem {
  streamId: string;
  streamVersion: number | null;
  eventId: string | null;
  globalPosition: number | null;
  reason: string;
}

/** A stream's head as found: its last stored version and hash (null when it has no events). */
export interface FoundHead {
  streamId: string;
  version: number;
  hash: string | null;
}

/** One line for a problem: where, then what. */
export function describeProblem(p: RunProblem): string {
  const where = p.streamVersion === null ? p.streamId : `${p.streamId} v${p.streamVersion}`;
  const event = p.eventId ? ` (event ${p.eventId} at position ${p.globalPosition})` : "";
  return `${where}${event}: ${p.reason}`;
}

export function currentHeads(streams: readonly FoundHead[]): StreamHead[] {
  return streams.filter((s) => isExecutorStream(s.streamId) && s.hash !== null).map((s) => ({ streamId: s.streamId, version: s.version, hash: s.hash! }));
}

/** Delegations, admissions and consumed handoffs must agree across streams. */
export function referenceProblems(events: Map<string, RecordedEvent[]>): RunProblem[] {
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
      // A Checker is admitted by the host on Main's answer: caused by Main's `settled`.
      const checker = admitted.data.role === "checker";
      const call = parent.find((p) =>
        checker
          ? p.type === "settled" && p.eventId === admitted.metadata.causationId
          : admitted.data.parentToolUseId === null
            ? p.type === "review_requested" && p.data.reviewerExecutorId === executorId
            : p.type === "tool_called" && p.data.toolUseId === admitted.data.parentToolUseId && p.data.childExecutorId === executorId,
      );
      const what = checker ? "the answer" : admitted.data.parentToolUseId === null ? "a review request" : `delegate call ${admitted.data.parentToolUseId}`;
      if (parent.length === 0) problems.push(problemAt(admitted, `admitted by executor ${parentId}, whose stream ${executorStreamId(parentId)} is missing`));
      else if (!call) problems.push(problemAt(admitted, `admitted for ${what} of ${parentId}, which the parent's stream does not hold`));
    }
  }
  return problems;
}

/** Main's final event (settled, failed, cancelled), if it has one: after it the run's host seals the run. */
export function mainEnded(events: Map<string, RecordedEvent[]>): RecordedEvent | undefined {
  for (const stream of events.values()) {
    if (stream[0]?.type !== "executor_admitted" || (stream[0] as RecordedEvent<"executor_admitted">).data.role !== "main") continue;
    return stream.find(isFinalEvent);
  }
  return undefined;
}

export function lastSeal(runStream: readonly RecordedEvent[]): RecordedEvent<"run_sealed"> | undefined {
  return runStream.findLast((e): e is RecordedEvent<"run_sealed"> => e.type === "run_sealed");
}

/** Differences between the sealed heads and the heads now, each at the first event it concerns. */
export function sealProblems(seal: RecordedEvent<"run_sealed">, heads: readonly StreamHead[], events: Map<string, RecordedEvent[]>): RunProblem[] {
  const problems: RunProblem[] = [];
  const sealedBy = `run_sealed ${seal.eventId}`;
  if (rootHashOf(seal.data.heads) !== seal.data.rootHash) {
    problems.push(problemAt(seal, "the seal's root hash does not match the heads it lists"));
  }
  const now = new Map(heads.map((h) => [h.streamId, h]));
  for (const sealed of seal.data.heads) {
    const head = now.get(sealed.streamId);
    const stream = events.get(sealed.streamId) ?? [];
    const gone = (reason: string): RunProblem => ({ streamId: sealed.streamId, streamVersion: (head?.version ?? 0) + 1, eventId: null, globalPosition: null, reason });
    if (!head) problems.push(gone(`sealed at version ${sealed.version} (${sealedBy}) but the stream is missing`));
    else if (head.version < sealed.version) {
      problems.push(gone(`sealed at version ${sealed.version} (${sealedBy}) but only ${head.version} events remain: events after version ${head.version} are missing`));
    } else if (head.version > sealed.version) {
      const added = stream.find((e) => e.streamVersion === sealed.version + 1);
      problems.push(added ? problemAt(added, `appended after the run was sealed at version ${sealed.version} (${sealedBy})`) : gone(`moved past the sealed version ${sealed.version}`));
    } else if (head.hash !== sealed.hash) {
      const last = stream.at(-1);
      const reason = `head hash ${head.hash} differs from the sealed ${sealed.hash} (${sealedBy}): the stream was rewritten after the seal`;
      problems.push(last ? problemAt(last, reason) : gone(reason));
    }
  }
  const sealedIds = new Set(seal.data.heads.map((h) => h.streamId));
  for (const head of heads) {
    if (sealedIds.has(head.streamId)) continue;
    const first = events.get(head.streamId)?.[0];
    const reason = `not among the streams the run was sealed with (${sealedBy})`;
    problems.push(first ? problemAt(first, reason) : { streamId: head.streamId, streamVersion: 1, eventId: null, globalPosition: null, reason });
  }
  return problems;
}
/** A problem located at an event that is still there. */
export const problemAt = (e: RecordedEvent, reason: string): RunProblem => ({
  streamId: e.streamId,
  streamVersion: e.streamVersion,
  eventId: e.eventId,
  globalPosition: e.globalPosition,
  reason,
});


/**
 * What a sealed run must hold without any key: it is over, so every executor
 * ended (settled, failed or cancelled), a Child that settled as handed off
 * committed its handoff, and a parent that settled consumed every handoff its
 * Children committed and answered every delegate call. Catches a whole
 * handoff removed and the streams re-chained and re-sealed, which chains, seal
 * and references alone accept.
 */
export function finalityProblems(events: Map<string, RecordedEvent[]>): RunProblem[] {
  const problems: RunProblem[] = [];
  const stream = (executorId: string) => events.get(executorStreamId(executorId)) ?? [];
  const settled = (own: readonly RecordedEvent[]) => own.find((e): e is RecordedEvent<"settled"> => e.type === "settled");
  for (const own of events.values()) {
    const admitted = own[0]?.type === "executor_admitted" ? (own[0] as RecordedEvent<"executor_admitted">) : null;
    if (!admitted) continue;
    const { executorId } = admitted.metadata;
    const who = `executor ${executorId} (${admitted.data.role})`;
    const end = own.find(isFinalEvent);
    if (!end) problems.push(problemAt(own.at(-1)!, `${who} never ended, yet the run is sealed: its final events were removed`));
    const ownSettled = settled(own);
    if (ownSettled?.data.outcome === "handed_off" && !own.some((e) => e.type === "handoff_committed")) {
      problems.push(problemAt(ownSettled, `${who} settled as handed off, but its stream holds no handoff_committed: the handoff was removed`));
    }
    const parentId = admitted.data.parentExecutorId;
    // A Reviewer's handoff reaches its parent as review_delivered (advice), never as handoff_consumed.
    if (parentId && admitted.data.role !== "reviewer" && settled(stream(parentId))) {
      const consumed = new Set(stream(parentId).flatMap((e) => (e.type === "handoff_consumed" ? [(e as RecordedEvent<"handoff_consumed">).data.handoffEventId] : [])));
      for (const commit of own.filter((e) => e.type === "handoff_committed")) {
        if (!consumed.has(commit.eventId)) problems.push(problemAt(commit, `the handoff of ${who} was committed, but its parent ${parentId} settled without consuming it: the parent's handoff_consumed was removed`));
      }
    }
    if (ownSettled) {
      const answered = new Set(own.flatMap((e) => ("toolUseId" in e.data && e.type !== "tool_called" ? [e.data.toolUseId] : [])));
      for (const call of own) {
        if (call.type === "tool_called" && call.data.childExecutorId && !answered.has(call.data.toolUseId)) {
          problems.push(problemAt(call, `${who} settled, but its delegate call ${call.data.toolUseId} to Child ${call.data.childExecutorId} has no outcome: the Child's handoff was removed`));
        }
      }
    }
  }
  return problems;
}
