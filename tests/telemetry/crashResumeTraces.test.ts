import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { openStore } from "../../events/openStore.ts";
import { type CliStore, ariadne, cliStore } from "../cli/ariadneProcess.ts";
import { type OtlpSpan, startOtlpReceiver } from "./otlpReceiver.ts";

/**
 * Traces after a crash, end to end (issue 33, item 6): `ariadne run` with
 * OTEL_EXPORTER_OTLP_ENDPOINT is killed at a commit boundary mid-run (holding
 * the trace export's checkpoint lease); `ariadne resume RUN` with the same
 * endpoint takes that lease over at once (the holder's process is dead),
 * exports the run's spans before it exits, and every span of the run, from
 * either process, carries the one trace id recorded at submission.
 */
const CRASH_AT = "after_commit:tool_completed:2";

describe("a run killed mid-run and resumed: the resume exports its spans, one trace across the crash", () => {
  let store: CliStore;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let runId: string;
  let events: RecordedEvent[];
  let beforeResume: OtlpSpan[];
  let spans: OtlpSpan[];
  let resumeCode: number | null;
  let resumeOutput: string;

  before(async () => {
    store = await cliStore("crash_otlp");
    receiver = await startOtlpReceiver();
    const env = { ...store.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const killed = await ariadne(["run", "--json", ...store.args], { ...env, ARIADNE_CRASH_AT: CRASH_AT });
    assert.notEqual(killed.code, 0, `the run was killed at ${CRASH_AT}: ${killed.stdout}${killed.stderr}`);
    // Opened only between the commands: an embedded (PGlite) store serves one process at a time.
    const read = async <T>(f: (log: Awaited<ReturnType<typeof openStore>>["store"]) => Promise<T>): Promise<T> => {
      const { store: log, close } = await openStore({ ...store.open, consistencyCheck: false });
      try {
        return await f(log);
      } finally {
        await close();
      }
    };
    runId = await read(async (log) => (await log.readAll()).events.find((e) => e.type === "run_submitted")!.metadata.runId);
    assert.ok(!(await read((log) => log.readRun(runId))).some((e) => e.type === "run_sealed"), "killed before the seal");
    beforeResume = receiver.spans.filter((s) => s.attributes["gen_ai.conversation.id"] === runId);
    const resumed = await ariadne(["resume", runId, "--json", ...store.args], env);
    resumeCode = resumed.code;
    resumeOutput = resumed.stdout + resumed.stderr;
    events = await read((log) => log.readRun(runId));
    spans = receiver.spans.filter((s) => s.attributes["gen_ai.conversation.id"] === runId);
  });
  after(async () => {
    await receiver?.close();
    await store?.dispose();
  });

  test("the resume finished the run and sent spans of it before it exited", () => {
    assert.equal(resumeCode, 0, resumeOutput);
    assert.equal(events.filter((e) => e.type === "run_resumed").length, 1);
    assert.ok(events.some((e) => e.type === "run_sealed"), "sealed by the resume");
    assert.ok(spans.length > beforeResume.length, `the resume sent no span (${beforeResume.length} before it, ${spans.length} after)`);
  });

  test("every span of the run, from either process, carries the trace id recorded at submission", () => {
    const submitted = events.find((e): e is RecordedEvent<"run_submitted"> => e.type === "run_submitted")!;
    const traceId = (submitted.data.options as { trace: { traceId: string } }).trace.traceId;
    assert.match(traceId, /^[0-9a-f]{32}$/);
    assert.deepEqual(new Set(spans.map((s) => s.traceId)), new Set([traceId]));
  });

  test("the spans cover every executor of the run and each kind of operation", () => {
    for (const op of ["invoke_agent", "chat", "execute_tool"]) assert.ok(spans.some((s) => s.attributes["gen_ai.operation.name"] === op), op);
    const admitted = events.filter((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted").map((e) => e.metadata.executorId);
    const traced = new Set(spans.map((s) => s.attributes["gen_ai.agent.id"]));
    assert.deepEqual(admitted.filter((id) => !traced.has(id)), [], "executors with no span");
  });
});
