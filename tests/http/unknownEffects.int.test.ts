import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderRunResult } from "../../cli/renderRunResult.ts";
import { runView as cliRunView } from "../../cli/runView.ts";
import { renderRun } from "../../cli/showRun.ts";
import { handoffsOf } from "../../cli/renderAnswer.ts";
import { projectRun } from "../../projections/index.ts";
import { type HostResult, type RunLease, resumeRun, submitRun } from "../../runs/index.ts";
import { ofType } from "../actors/fixtures.ts";
import { slowOrderRun } from "../runs/slowOrderRun.ts";
import { ariadne } from "../cli/ariadneProcess.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness } from "./harness.ts";

/**
 * A real recorded run with an effect of unknown outcome: a process starts a
 * submitted run's order and "dies" before its outcome is recorded (its tool never returns);
 * `resume` in a fresh runtime records effect_unknown, does not place the order
 * again, and Main answers. What each reader of the answer shows of it.
 */
forEachEngine("effects of unknown outcome are shown with the answer", (ctx) => describe("readers", () => {
  let h: Harness;
  let admin: string;
  let runId: string;
  let mainExecutorId: string;
  let toolUseId: string;
  let resumed: { result: HostResult; lease: RunLease };

  before(async () => {
    h = await openHarness(ctx.store, { workers: false });
    const tenant = h.tenant();
    admin = await h.key("admin", tenant);
    const run = await submitRun(ctx.store, { question: "Place the order.", tenant });
    const crashed = slowOrderRun(); // never opened: its process "dies" with the order in flight
    await (await crashed.build(ctx.store, undefined as never)).startRun("Place the order.", "", run);
    await crashed.counter.started.opened; // the process "dies" here: the order's outcome is never recorded
    const resumer = slowOrderRun();
    resumer.open();
    const hosted = await resumeRun({ database: ctx.db.database, store: ctx.store, buildRuntime: resumer.build, ttlMs: 60_000 }, run.runId);
    resumed = { result: await hosted.done, lease: hosted.lease };
    assert.deepEqual([crashed.counter.runs, resumer.counter.runs], [1, 0], "the order was placed once, never again on resume");
    ({ runId, mainExecutorId } = run);
    const [unknown] = ofType(await ctx.store.readRun(runId), "effect_unknown");
    toolUseId = unknown.data.toolUseId;
  });
  after(() => h.close());

  test("the run view (projectRun) lists the call: executor, tool use id, tool", async () => {
    assert.equal(resumed.result.kind === "finished" && resumed.result.outcome.kind, "answer");
    const view = await projectRun(ctx.store, runId);
    assert.deepEqual(view.unknownEffects, [{ executorId: mainExecutorId, toolUseId, tool: "place_order" }]);
    assert.ok(view.answer, "the answer is there as before");
  });

  test("run/resume print a block naming the tool, executor and tool use id, saying it was not run again; --json carries unknownEffects", async () => {
    const text: string[] = [];
    const code = await renderRunResult(resumed.result, { store: ctx.store, location: "test", lease: resumed.lease, json: false, out: (l) => text.push(l) });
    assert.equal(code, 3, "partial: Main answered from its own call, no claim cites a Child's finding");
    const at = text.findIndex((l) => l.startsWith("UNKNOWN EFFECTS (1):"));
    assert.ok(at > text.indexOf("(scripted) done"), `a block after the answer:\n${text.join("\n")}`);
    assert.match(text[at + 1], /not run again\. Check by hand/);
    assert.equal(text[at + 2], `  - place_order · tool use ${toolUseId} · main (${mainExecutorId})`);

    const json: string[] = [];
    await renderRunResult(resumed.result, { store: ctx.store, location: "test", lease: resumed.lease, json: true, out: (l) => json.push(l) });
    const printed = JSON.parse(json[0]);
    assert.deepEqual(printed.unknownEffects, [{ executorId: mainExecutorId, toolUseId, tool: "place_order" }]);
    assert.equal(printed.outcome, "answer", "the other fields are as they were");
  });

  test("show prints the same block after the answer, and show --json carries unknownEffects", async () => {
    const view = cliRunView(await projectRun(ctx.store, runId));
    assert.deepEqual(view.unknownEffects, [{ executorId: mainExecutorId, toolUseId, tool: "place_order" }]);
    const lines = renderRun(view, handoffsOf(view));
    const at = lines.findIndex((l) => l.startsWith("UNKNOWN EFFECTS (1):"));
    assert.ok(at > lines.indexOf("answer:"), lines.join("\n"));
    assert.equal(lines[at + 2], `  - place_order · tool use ${toolUseId} · main (${mainExecutorId})`);
  });

  // The PGlite test store lives in this process; a CLI process reaches the PostgreSQL one.
  if (ctx.engine === "postgres") test("ariadne show RUN (a process of its own) prints the block, and --json carries unknownEffects", async () => {
    const env = { DATABASE_URL: ctx.db.url! };
    const shown = await ariadne(["show", runId], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^UNKNOWN EFFECTS \(1\): these tool calls were started but their outcome was never recorded/m);
    assert.ok(shown.stdout.includes(`  - place_order · tool use ${toolUseId} · main (${mainExecutorId})`), shown.stdout);
    const view = JSON.parse((await ariadne(["show", runId, "--json"], env)).stdout);
    assert.deepEqual(view.unknownEffects, [{ executorId: mainExecutorId, toolUseId, tool: "place_order" }]);
  });

  test("GET /v1/runs/{id} has unknownEffects, and /openapi.json documents it", async () => {
    const res = await h.app.request(`/v1/runs/${runId}`, { headers: bearer(admin) });
    const run = (await res.json()) as Record<string, any>;
    assert.equal(res.status, 200, JSON.stringify(run));
    assert.equal(run.state, "settled");
    assert.deepEqual(run.unknownEffects, [{ executorId: mainExecutorId, toolUseId, tool: "place_order" }]);
    const doc = (await (await h.app.request("/openapi.json")).json()) as any;
    const field = doc.components.schemas.Run.properties.unknownEffects;
    assert.equal(field.type, "array");
    assert.match(field.description, /not run again/);
    assert.deepEqual(Object.keys(doc.components.schemas.UnknownEffect.properties), ["executorId", "toolUseId", "tool"]);
    assert.ok(doc.components.schemas.Run.required.includes("unknownEffects"));
  });
}));
