import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { SpanStatusCode } from "@opentelemetry/api";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { type Database, migrateToLatest, openDatabase } from "../../db/index.ts";
import { createEventStore, type RecordedEvent, intentOf } from "../../events/index.ts";
import type { TraceExport } from "../../telemetry/index.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { startEffectCounter } from "../faults/effectCounter.ts";
import { runCase } from "../faults/harness.ts";
import { attr, memorySink, orphans, parentOf } from "./spanSink.ts";

/**
 * A worker process is killed (SIGKILL) right after a Child's read-only tool
 * ran and before its result was recorded; a second worker takes the run over.
 * The exporter (here, in the test's process) follows the log throughout: the
 * spans of both hosts make one trace with no orphans and one execute_tool
 * span per tool call.
 */
describe("traces across a kill -9 mid-Child and a takeover by another worker", () => {
  let scratch: ScratchDatabase;
  let database: Database;
  let counter: Awaited<ReturnType<typeof startEffectCounter>>;
  let exporter: TraceExport;
  const sink = memorySink();
  let runId: string;
  let events: RecordedEvent[];
  let spans: ReadableSpan[];

  before(async () => {
    counter = await startEffectCounter();
    scratch = await createScratchDatabase(`ariadne_traces_${process.pid}`, ADMIN_URL);
    database = await openDatabase({ url: scratch.url });
    await migrateToLatest(database);
    const store = createEventStore(database);
    exporter = await sink.export(store);
    // Seed 0: crashes at the first pass and restarts with a second worker (tests/faults/harness.ts).
    const result = await runCase({ url: scratch.url }, counter, "after_effect:read_counter", 0);
    assert.ok(result.crashed, `the crash point was never reached:\n${result.firstOutput}`);
    assert.deepEqual(result.violations, []);
    runId = result.runId;
    await exporter.caughtUp();
    events = await store.readRun(runId);
    spans = sink.spans().filter((s) => attr(s, "gen_ai.conversation.id") === runId);
  });
  after(async () => {
    await exporter?.stop();
    await sink.close();
    await database?.close();
    await counter?.close();
    await scratch?.drop();
  });

  test("the run was taken over mid-Child", () => {
    assert.equal(events.filter((e) => e.type === "run_resumed").length, 1);
    // The read was run again: named by `recovered` when its intent was in the log at the crash; when it was
    // still held (to be one row with its outcome), the new host decided it again and the log has one row.
    assert.ok(counter.readsOf(runId).some((x) => x.n === 2), "a Child's read was run again");
  });

  test("one trace, the one recorded at submission; no orphan spans; no span twice", () => {
    const submitted = events.find((e): e is RecordedEvent<"run_submitted"> => e.type === "run_submitted")!;
    const traceId = (submitted.data.options as { trace: { traceId: string } }).trace.traceId;
    assert.deepEqual(new Set(spans.map((s) => s.spanContext().traceId)), new Set([traceId]));
    assert.deepEqual(orphans(spans).map((s) => s.name), []);
    const ids = spans.map((s) => s.spanContext().spanId);
    assert.equal(new Set(ids).size, ids.length);
  });

  test("one execute_tool span per tool call; the re-run read is that span, marked as run again", () => {
    const calls = events.flatMap((e) => (intentOf(e) ? [{ metadata: e.metadata, data: intentOf(e)! }] : []));
    const tools = spans.filter((s) => attr(s, "gen_ai.operation.name") === "execute_tool");
    const key = (executor: unknown, call: unknown) => `${executor}/${call}`;
    assert.deepEqual(tools.map((s) => key(attr(s, "gen_ai.agent.id"), attr(s, "gen_ai.tool.call.id"))).sort(), calls.map((c) => key(c.metadata.executorId, c.data.toolUseId)).sort());
    const reruns = events.filter((e): e is RecordedEvent<"recovered"> => e.type === "recovered").flatMap((e) => e.data.rerun.map((id) => [e.metadata.executorId, id]));
    for (const [executorId, id] of reruns) {
      const span = tools.find((s) => attr(s, "gen_ai.tool.call.id") === id && attr(s, "gen_ai.agent.id") === executorId)!;
      assert.equal(attr(span, "ariadne.tool.rerun"), true);
      assert.notEqual(span.status.code, SpanStatusCode.ERROR);
    }
  });

  test("each segment the crash cut ends interrupted, and the resumed segment links to it under the same parent", () => {
    const agents = spans.filter((s) => attr(s, "gen_ai.operation.name") === "invoke_agent");
    const interrupted = agents.filter((s) => attr(s, "error.type") === "interrupted");
    assert.ok(interrupted.some((s) => attr(s, "ariadne.executor.role") === "child"), "a Child's segment was cut");
    for (const cut of interrupted) {
      assert.equal(cut.status.code, SpanStatusCode.ERROR);
      const resumed = agents.filter((s) => s.links.some((l) => l.context.spanId === cut.spanContext().spanId));
      assert.equal(resumed.length, 1, `the segment after ${cut.name}`);
      assert.equal(attr(resumed[0], "gen_ai.agent.id"), attr(cut, "gen_ai.agent.id"));
      assert.equal(parentOf(resumed[0]), parentOf(cut));
    }
  });
});
