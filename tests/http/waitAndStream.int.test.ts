import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createLeasedRuns } from "../../http/runs/leasedRuns.ts";
import type { RunsPort } from "../../http/runs/runsPort.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, type SseFrame, bearer, openHarness, postJson, sseFrames } from "./harness.ts";

const FINAL = ["settled", "failed", "cancelled"];
const SSE = { accept: "text/event-stream" };

async function allFrames(res: Response): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  for await (const f of sseFrames(res.body!)) {
    if (f.comment === undefined) frames.push(f);
    if (f.event === "end") break;
  }
  return frames;
}

// Issue 18: wait for the result, start and stream in one call, ?types= and answer.delta.
forEachEngine("HTTP: wait, start-and-stream, types and answer deltas", (ctx) => describe("clients", () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await openHarness(ctx.store, { scriptedLatencyMs: 20 });
    key = await h.key("client", h.tenant("wait"));
  });
  after(() => h.close());

  // Waits of 60 s under a 45 s timeout: a wait that ran to its deadline instead of answering at the stop fails.
  test("POST /v1/runs?wait=60 answers once the run stopped; GET ?wait= of a stopped run answers at once", { timeout: 45_000 }, async () => {
    const res = await h.app.request("/v1/runs?wait=60", postJson(key, { offline: true, context: "waited" }));
    assert.equal(res.status, 201);
    const run = (await res.json()) as { id: string; state: string; answer: unknown };
    assert.equal(run.state, "settled");
    assert.ok(run.answer);
    const got = (await (await h.app.request(`/v1/runs/${run.id}?wait=60`, { headers: bearer(key) })).json()) as { state: string };
    assert.equal(got.state, "settled");
  });

  test("GET /v1/runs/{id}?wait= blocks until the run stops", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(key, { offline: true, context: "get-waited" }))).json()) as { id: string; state: string };
    assert.ok(!FINAL.includes(run.state));
    const waited = (await (await h.app.request(`/v1/runs/${run.id}?wait=60`, { headers: bearer(key) })).json()) as { state: string };
    assert.equal(waited.state, "settled");
  });

  test("wait above the maximum, or wait with a stream, is refused", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(key, { offline: true, context: "bounds" }))).json()) as { id: string };
    assert.equal((await h.app.request(`/v1/runs/${run.id}?wait=61`, { headers: bearer(key) })).status, 400);
    assert.equal((await h.app.request("/v1/runs?wait=5", postJson(key, { offline: true, stream: true }))).status, 422);
  });

  test("POST with Accept: text/event-stream creates the run and streams it: run first, then its events, then end; resumable with Last-Event-ID", async () => {
    const res = await h.app.request("/v1/runs", postJson(key, { offline: true, context: "streamed" }, SSE));
    assert.equal(res.status, 201);
    assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
    const frames = await allFrames(res);
    assert.equal(frames[0]!.event, "run");
    assert.equal(frames[0]!.id, undefined, "the run frame is no event of the log");
    const run = JSON.parse(frames[0]!.data!) as { id: string };
    assert.equal(res.headers.get("location"), `/v1/runs/${run.id}`);
    const events = frames.slice(1, -1);
    assert.equal(frames.at(-1)!.event, "end");
    assert.ok(events.length > 10);
    assert.ok(events.every((f) => f.id && f.event !== "answer.delta"), "no deltas unless asked for");
    assert.ok(events.some((f) => f.event === "settled"));
    // The same events as the run's own stream, and a resume from the middle gives exactly the rest.
    const whole = await allFrames(await h.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(key, SSE) }));
    assert.deepEqual(events.map((f) => f.id), whole.slice(0, -1).map((f) => f.id));
    const middle = events[Math.floor(events.length / 2)]!.id!;
    const rest = await allFrames(await h.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(key, { ...SSE, "last-event-id": middle }) }));
    assert.deepEqual(rest.slice(0, -1).map((f) => f.id), events.slice(events.findIndex((f) => f.id === middle) + 1).map((f) => f.id));
  });

  test('"stream": true in the body streams too, with ?types= filtering and answer.delta carrying Main\'s answer as it is written', async () => {
    const res = await h.app.request("/v1/runs?types=executor_admitted,settled,answer.delta", postJson(key, { offline: true, context: "deltas", stream: true }));
    assert.equal(res.status, 201);
    const frames = await allFrames(res);
    const recorded = frames.filter((f) => f.id !== undefined);
    assert.deepEqual([...new Set(recorded.map((f) => f.event))].sort(), ["executor_admitted", "settled"]);
    const deltas = frames.filter((f) => f.event === "answer.delta");
    assert.ok(deltas.length > 0, "deltas were sent");
    assert.ok(deltas.every((f) => f.id === undefined), "a delta has no id: a resume skips it");
    const parsed = deltas.map((f) => JSON.parse(f.data!) as { type: string; partialJson?: string; scripted: boolean; executorId: string });
    assert.ok(parsed.every((d) => d.scripted), "a scripted run says so");
    const run = JSON.parse(frames[0]!.data!) as { id: string; mainExecutorId: string };
    assert.ok(parsed.every((d) => d.executorId === run.mainExecutorId), "Main's only");
    const answerJson = parsed.filter((d) => d.type === "answer_json").map((d) => d.partialJson).join("");
    const final = (await (await h.app.request(`/v1/runs/${run.id}`, { headers: bearer(key) })).json()) as { answer: { summary: string } };
    assert.equal((JSON.parse(answerJson) as { summary: string }).summary, final.answer.summary, "the streamed answer is the recorded one");
  });

  test("?types= on the events route: SSE and JSON pages hold only those types; an unknown type is 422 naming it", async () => {
    const run = (await (await h.app.request("/v1/runs?wait=60", postJson(key, { offline: true, context: "typed" }))).json()) as { id: string };
    const sse = await allFrames(await h.app.request(`/v1/runs/${run.id}/events?types=handoff_committed,settled`, { headers: bearer(key, SSE) }));
    assert.deepEqual([...new Set(sse.map((f) => f.event))].sort(), ["end", "handoff_committed", "settled"]);
    const page = (await (await h.app.request(`/v1/runs/${run.id}/events?types=settled`, { headers: bearer(key) })).json()) as { events: { type: string }[] };
    assert.ok(page.events.length > 1, "Main's and its Children's");
    assert.deepEqual([...new Set(page.events.map((e) => e.type))], ["settled"]);
    const bad = await h.app.request(`/v1/runs/${run.id}/events?types=settled,setled`, { headers: bearer(key) });
    assert.equal(bad.status, 422);
    const body = (await bad.json()) as { detail: string; issues: { path: string }[] };
    assert.match(body.detail, /"setled"/);
    assert.equal(body.issues[0]!.path, "query.types");
  });
}));

forEachEngine("HTTP: waiting listens, never polls", (ctx) => describe("wait", () => {
  let h: Harness;
  let key: string;
  let reads = 0;
  before(async () => {
    const port = createLeasedRuns({ store: ctx.store });
    const counted: RunsPort = { ...port, get: (scope, id) => (reads++, port.get(scope, id)) };
    // No worker: runs stay queued until cancelled.
    h = await openHarness(ctx.store, { workers: false, runs: counted });
    key = await h.key("client", h.tenant("listen"));
  });
  after(() => h.close());

  test("a wait that runs out answers the run as it is, after reading it twice", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(key, { offline: true, context: "never taken" }))).json()) as { id: string };
    reads = 0;
    const started = performance.now();
    const res = await h.app.request(`/v1/runs/${run.id}?wait=2`, { headers: bearer(key) });
    const ms = performance.now() - started;
    assert.equal(((await res.json()) as { state: string }).state, "queued");
    assert.ok(ms >= 1_900, `answered ${Math.round(ms)} ms into a 2 s wait`);
    assert.ok(reads <= 3, `read ${reads} times in 2 s`);
  });

  test("a cancel ends the wait at once", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(key, { offline: true, context: "cancelled while waited" }))).json()) as { id: string };
    const started = performance.now();
    const waiting = h.app.request(`/v1/runs/${run.id}?wait=30`, { headers: bearer(key) });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await h.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST", headers: bearer(key) })).status, 202);
    const waited = (await (await waiting).json()) as { state: string };
    assert.equal(waited.state, "cancelled");
    assert.ok(performance.now() - started < 10_000, `${Math.round(performance.now() - started)} ms`);
  });
}));
