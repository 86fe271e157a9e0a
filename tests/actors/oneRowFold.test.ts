import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type RecordedEvent, isExecutorStream } from "../../events/index.ts";
import { rowToEvent } from "../../events/rowToEvent.ts";
import { foldEvents } from "../../actors/fold/executorMachine.ts";
import { rebuildTranscript } from "../../actors/request/transcript.ts";
import { budget, claimProvenance, foldAll, reportOfEvents, runClaims } from "../../projections/index.ts";
import { foldTraceEvent, newTraceState } from "../../telemetry/traceFold.ts";
import { recordedLinks, recordedRuns } from "../support/recordedRuns.ts";

/**
 * Logs written before one row per read-only call (a tool_called, then its
 * outcome) and the same logs with each read-only call as one row (the outcome
 * carrying its intent, under the intent's id) read alike: the executor's fold,
 * every request rebuilt from it, claim provenance down to the sources' bytes,
 * the run report, the budget and the trace. The logs are the runs recorded
 * before issue 28 (tests/fixtures/recorded-before-28), read as stored.
 */
describe("one row per read-only call reads like an intent and its outcome", () => {
  // child-ended's Children call no read-only tool: nothing to merge there.
  for (const run of recordedRuns().filter((r) => r.name !== "child-ended")) {
    const events = recordedLinks(run.dir).map(asRecorded);
    const oneRow = asOneRow(events);

    test(`${run.name}: the rewrite has rows to merge (else this test shows nothing)`, () => {
      assert.ok(oneRow.merged > 0, `${run.name} has no read-only call`);
      assert.equal(oneRow.events.length, events.length - oneRow.merged);
      assert.equal(oneRow.events.filter((e) => e.type === "tool_called" && e.data.effect === "read_only").length, 0);
    });

    test(`${run.name}: every executor folds to the same state and rebuilds the same requests`, () => {
      for (const [streamId, stream] of byStream(events)) {
        const merged = byStream(oneRow.events).get(streamId)!;
        const a = foldEvents(stream);
        const b = foldEvents(merged);
        assert.equal(b.status, a.status, streamId);
        assert.deepEqual(comparable(b.state!), comparable(a.state!), streamId);
        const ctx = { system: "", tools: [], maxTokens: 4096 };
        const requests = (log: RecordedEvent[]) => rebuildTranscript(log, ctx).turns.map((t) => t.request);
        assert.deepEqual(requests(merged), requests(stream), streamId);
      }
    });

    test(`${run.name}: claim provenance, the report, the budget and the trace read the one-row log alike`, () => {
      const claims = (log: RecordedEvent[]) => withoutEventRefs(runClaims(run.runId, foldAll(claimProvenance, log)));
      const before = claims(events);
      assert.ok(JSON.stringify(before).includes("rawSha256"), "the claims reach their sources' bytes");
      assert.deepEqual(claims(oneRow.events), before);
      assert.deepEqual(withoutEventRefs(reportOfEvents(run.runId, oneRow.events)), withoutEventRefs(reportOfEvents(run.runId, events)));
      assert.deepEqual(foldAll(budget, oneRow.events).executors, foldAll(budget, events).executors);
      const spans = (log: RecordedEvent[]) => {
        const s = newTraceState(run.runId);
        return log.flatMap((e) => foldTraceEvent(s, e)).filter((x) => x.operation === "execute_tool").map((x) => [x.attributes["gen_ai.tool.call.id"], x.attributes["ariadne.tool.effect"]]);
      };
      assert.deepEqual(spans(oneRow.events).sort(), spans(events).sort());
    });
  }
});

/** A bundle's row as the store reads it back (payload checked against its version, then upcast). */
function asRecorded(l: ReturnType<typeof recordedLinks>[number]): RecordedEvent {
  return rowToEvent({
    global_position: l.globalPosition,
    event_id: l.eventId,
    stream_id: l.streamId,
    stream_version: l.streamVersion,
    run_id: l.metadata.runId,
    executor_id: l.metadata.executorId,
    type: l.type,
    schema_version: l.schemaVersion,
    data: l.data,
    metadata: l.metadata,
    recorded_at: l.recordedAt,
    prev_hash: l.prevHash,
    hash: l.hash,
  });
}

/**
 * The log as one row per read-only call would have written it: each read-only
 * intent folded into its outcome (tool_completed or tool_failed), which keeps
 * the intent's id; stream versions renumbered.
 */
function asOneRow(events: readonly RecordedEvent[]): { events: RecordedEvent[]; merged: number } {
  const out: RecordedEvent[] = events.filter((e) => !isExecutorStream(e.streamId));
  let merged = 0;
  for (const [, stream] of byStream(events)) {
    const intents = new Map<string, RecordedEvent<"tool_called">>();
    const kept: RecordedEvent[] = [];
    for (const e of stream) {
      if (e.type === "tool_called" && e.data.effect === "read_only" && !e.data.childExecutorId && hasOutcome(stream, e)) {
        intents.set(e.data.toolUseId, e);
        continue;
      }
      const intent = (e.type === "tool_completed" || e.type === "tool_failed") && intents.get(e.data.toolUseId);
      if (!intent) {
        kept.push(e);
        continue;
      }
      intents.delete(e.data.toolUseId);
      merged++;
      kept.push({ ...e, eventId: intent.eventId, metadata: intent.metadata, data: { ...e.data, intent: { turn: intent.data.turn, input: intent.data.input, effect: "read_only" } } } as RecordedEvent);
    }
    out.push(...kept.map((e, i) => ({ ...e, streamVersion: i + 1 }) as RecordedEvent));
  }
  return { events: out.sort((a, b) => a.globalPosition - b.globalPosition), merged };
}

function hasOutcome(stream: readonly RecordedEvent[], intent: RecordedEvent<"tool_called">): boolean {
  return stream.some((e) => (e.type === "tool_completed" || e.type === "tool_failed") && e.data.toolUseId === intent.data.toolUseId && e.streamVersion > intent.streamVersion);
}

function byStream(events: readonly RecordedEvent[]): Map<string, RecordedEvent[]> {
  const streams = new Map<string, RecordedEvent[]>();
  for (const e of events) if (isExecutorStream(e.streamId)) streams.set(e.streamId, [...(streams.get(e.streamId) ?? []), e]);
  for (const s of streams.values()) s.sort((a, b) => a.streamVersion - b.streamVersion);
  return streams;
}

/** What the fold knows, without where it sits in the stream (versions and event ids differ by construction). */
function comparable(s: NonNullable<ReturnType<typeof foldEvents>["state"]>) {
  const { version, lastEventId, toolResults, calls, outcome, ...rest } = s;
  void version, lastEventId;
  return {
    ...rest,
    toolResults: Object.fromEntries(Object.entries(toolResults).map(([id, r]) => [id, { ...r, eventId: undefined }])),
    calls: calls.map((c) => ({ ...c, intentEventId: undefined })),
    outcome: outcome && { ...outcome, eventId: undefined, hash: undefined },
  };
}

/** A projection's output without event ids, positions and versions (the one-row log moves and drops rows). */
function withoutEventRefs(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (["eventId", "position", "globalPosition", "streamVersion", "hash", "intentEventId", "causationId"].includes(key) ? undefined : v)));
}
