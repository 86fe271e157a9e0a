import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson, sseFrames, waitForFinal } from "./harness.ts";

const PROBLEM = "application/problem+json";

async function problem(res: Response, status: number): Promise<Record<string, any>> {
  assert.equal(res.status, status, await res.clone().text());
  assert.equal(res.headers.get("content-type"), PROBLEM);
  const body = (await res.json()) as Record<string, any>;
  assert.equal(body.status, status);
  assert.equal(typeof body.detail, "string");
  assert.doesNotMatch(JSON.stringify(body), /\n\s+at /, "no stack trace");
  return body;
}

// A nested suite, so its after hook (closing the hub) runs before the engine's database is disposed.
forEachEngine("HTTP API", (ctx) => describe("routes", () => {
  let h: Harness;
  let tenant: string;
  let client: string;
  before(async () => {
    h = await openHarness(ctx.store, { scriptedLatencyMs: 20 });
    tenant = h.tenant();
    client = await h.key("client", tenant);
  });
  after(() => h.close());

  test("POST /v1/runs starts a run: 201 with id, state, links and Location; it settles with an answer", async () => {
    const res = await h.app.request("/v1/runs", postJson(client, { offline: true, context: "long-term", reviewer: "off" }));
    assert.equal(res.status, 201);
    const run = (await res.json()) as Record<string, any>;
    assert.match(run.id, /^[0-9a-f-]{36}$/);
    assert.ok(["queued", "running"].includes(run.state));
    assert.equal(run.tenant, tenant);
    assert.equal(res.headers.get("location"), `/v1/runs/${run.id}`);
    assert.deepEqual(Object.keys(run.links).sort(), ["cancel", "events", "self", "verify"]);

    const final = await waitForFinal(h.app, client, run.id);
    assert.equal(final.state, "settled");
    assert.ok(final.answer && Array.isArray(final.answer.sections), "the answer once settled");
    assert.equal(final.scripted, true);
    assert.ok(final.budget.turns > 0 && final.budget.inputTokens > 0);
    assert.equal(final.executors.role, "main");
    assert.equal(final.executors.children.filter((c: any) => c.role === "child").length, 3, "the executor tree holds Main's three Children");
    assert.deepEqual(final.executors.children.filter((c: any) => c.role !== "child").map((c: any) => c.role), ["checker"], "and the Checker, started on Main's answer");
    assert.deepEqual(final.unknownEffects, [], "no effect of unknown outcome");
  });

  test("POST /v1/runs with a question and no model configured: 422 naming what to set, nothing recorded; \"offline\": true runs the scenario", async () => {
    const t = h.tenant();
    const k = await h.key("client", t);
    const refused = await problem(await h.app.request("/v1/runs", postJson(k, { question: "What is the capital of France?" })), 422);
    assert.equal(refused.type, "urn:ariadne:problem:MODEL_NOT_CONFIGURED");
    assert.match(refused.detail, /set ANTHROPIC_API_KEY/);
    assert.deepEqual(((await (await h.app.request("/v1/runs", { headers: bearer(k) })).json()) as any).data, [], "nothing was recorded");
    const both = await problem(await h.app.request("/v1/runs", postJson(k, { question: "What is the capital of France?", offline: true })), 422);
    assert.match(both.detail, /asks its own question/);

    const offline = (await (await h.app.request("/v1/runs", postJson(k, { offline: true }))).json()) as any;
    assert.equal(offline.scripted, true);
    assert.match(offline.question, /ADIV ETF/);
    assert.equal((await waitForFinal(h.app, k, offline.id)).state, "settled");
  });

  test("GET /v1/runs pages newest first and filters by state", async () => {
    const t = h.tenant();
    const k = await h.key("client", t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await (await h.app.request("/v1/runs", postJson(k, { offline: true, context: `q${i}` }))).json()) as any).id);
    for (const id of ids) await waitForFinal(h.app, k, id);

    const first = (await (await h.app.request("/v1/runs?limit=2", { headers: bearer(k) })).json()) as any;
    assert.deepEqual(first.data.map((r: any) => r.id), [ids[2], ids[1]]);
    assert.ok(first.next_cursor);
    assert.equal(first.has_more, true);
    const second = (await (await h.app.request(`/v1/runs?limit=2&cursor=${first.next_cursor}`, { headers: bearer(k) })).json()) as any;
    assert.deepEqual(second.data.map((r: any) => r.id), [ids[0]]);
    assert.equal(second.next_cursor, null);
    assert.equal(second.has_more, false);

    const settled = (await (await h.app.request("/v1/runs?state=settled", { headers: bearer(k) })).json()) as any;
    assert.equal(settled.data.length, 3);
    const cancelled = (await (await h.app.request("/v1/runs?state=cancelled", { headers: bearer(k) })).json()) as any;
    assert.equal(cancelled.data.length, 0);

    await problem(await h.app.request("/v1/runs?state=bogus", { headers: bearer(k) }), 400);
    await problem(await h.app.request("/v1/runs?limit=0", { headers: bearer(k) }), 400);
    await problem(await h.app.request("/v1/runs?cursor=notacursor", { headers: bearer(k) }), 400);
  });

  test("GET /v1/runs/{id}: 404 problem for an unknown id, 400 for a malformed one", async () => {
    const body = await problem(await h.app.request("/v1/runs/00000000-0000-4000-8000-000000000000", { headers: bearer(client) }), 404);
    assert.match(body.detail, /no run/);
    const bad = await problem(await h.app.request("/v1/runs/bad%20id!", { headers: bearer(client) }), 400);
    assert.equal(bad.issues[0].path, "path.id");
  });

  test("bad bodies: 400 naming each zod issue path; malformed JSON 400; wrong content type 415; oversized 413", async () => {
    const bad = await problem(await h.app.request("/v1/runs", postJson(client, { question: 42, caps: { main: { maxTurns: -1 } }, extra: true })), 400);
    const paths = bad.issues.map((i: any) => i.path).sort();
    assert.deepEqual(paths, ["body", "body.caps.main.maxTurns", "body.question"]);

    await problem(await h.app.request("/v1/runs", { method: "POST", headers: bearer(client, { "content-type": "application/json" }), body: "{not json" }), 400);
    await problem(await h.app.request("/v1/runs", { method: "POST", headers: bearer(client, { "content-type": "text/plain" }), body: "question?" }), 415);
    await problem(await h.app.request("/v1/runs", postJson(client, { question: "x".repeat(70_000) })), 413);
    // Text the log cannot store (found by the fuzz test): refused with its path, never a 5xx.
    const unstorable = await problem(await h.app.request("/v1/runs", postJson(client, { question: "fees?\ud800", context: "a\u0000b" })), 400);
    assert.deepEqual(unstorable.issues.map((i: any) => i.path).sort(), ["body.context", "body.question"]);
  });

  test("caps above the configured maximum and unknown profiles are 422 naming the field, and nothing is recorded", async () => {
    const t = h.tenant();
    const k = await h.key("client", t);
    const caps = await problem(await h.app.request("/v1/runs", postJson(k, { offline: true, context: "q", caps: { main: { maxTurns: 99 }, maxDepth: 5 } })), 422);
    assert.match(caps.detail, /caps\.main\.maxTurns: 99 is above the configured maximum 40/);
    assert.match(caps.detail, /caps\.maxDepth: 5 is above the configured maximum 2/);
    assert.deepEqual(caps.issues.map((i: any) => i.path).sort(), ["body.caps.main.maxTurns", "body.caps.maxDepth"]);
    const profiles = await problem(await h.app.request("/v1/runs", postJson(k, { offline: true, context: "q", allowedProfiles: ["no-such-profile"] })), 422);
    assert.match(profiles.detail, /allowedProfiles: unknown no-such-profile/);
    const list = (await (await h.app.request("/v1/runs", { headers: bearer(k) })).json()) as any;
    assert.equal(list.data.length, 0);
    const rows = await ctx.store.database.db.selectFrom("ariadne_runs").select("run_id").where("tenant", "=", t).execute();
    assert.equal(rows.length, 0);
  });

  test("caps, reviewer mode and models are recorded with the run; lower caps hold in its budget", async () => {
    const t = h.tenant();
    const k = await h.key("client", t);
    const body = { offline: true, context: "reviewed", reviewer: "advisory", caps: { main: { maxTurns: 9 }, child: { maxTurns: 20, maxToolCalls: 5 }, maxDepth: 1 } };
    const run = (await (await h.app.request("/v1/runs", postJson(k, body))).json()) as any;
    const row = await ctx.store.database.db.selectFrom("ariadne_runs").select(["options", "tenant"]).where("run_id", "=", run.id).executeTakeFirstOrThrow();
    const options = row.options as any;
    assert.equal(row.tenant, t);
    assert.equal(options.reviewer, "advisory");
    assert.equal(options.caps.main.maxTurns, 9);
    assert.equal(options.caps.child.maxTurns, 20);
    assert.equal(options.caps.investigate.maxTurns, 15, "a Child cap never raises investigate-style Children");
    assert.equal(options.caps.investigate.maxToolCalls, 5);
    assert.equal(options.caps.delegation.maxDepth, 1);
    const final = await waitForFinal(h.app, k, run.id);
    assert.equal(final.state, "settled", final.reason);
    assert.ok(final.budget.spent.tokens > 0, "the run's shared budget counts what its executors spent");
    assert.equal(final.budget.spent.tokens, final.budget.inputTokens + final.budget.outputTokens);
    assert.ok(final.executors.children.some((c: any) => c.role === "reviewer"), "an advisory Reviewer ran");
  });

  test("allowedProfiles: the delegate tool offers only those, a delegation naming another is refused as invalid input, Main goes on", async () => {
    const t = h.tenant();
    const k = await h.key("client", t);
    const run = (await (await h.app.request("/v1/runs", postJson(k, { offline: true, context: "only the web", allowedProfiles: ["web-explorer"] }))).json()) as any;
    const final = await waitForFinal(h.app, k, run.id);
    assert.equal(final.state, "settled");
    assert.deepEqual(final.executors.children.filter((c: any) => c.role === "child").map((c: any) => c.profile), ["web-explorer"]);
    const events = (await (await h.app.request(`/v1/runs/${run.id}/events?limit=1000`, { headers: bearer(k) })).json()) as any;
    const refused = events.events.filter((e: any) => e.type === "tool_failed" && e.data.tool === "delegate");
    assert.equal(refused.length, 2);
    for (const e of refused) {
      assert.equal(e.data.reason, "invalid_input");
      assert.match(e.data.message, /is not allowed in this run\. Allowed profiles: web-explorer/);
    }
    assert.ok(!events.events.some((e: any) => e.data?.reason === "governance"), "not a governance stop");
    const transcript = (await (await h.app.request(`/v1/runs/${run.id}/executors/${final.mainExecutorId}/transcript`, { headers: bearer(k) })).json()) as any;
    const delegate = transcript.turns[0].request.tools.find((x: any) => x.name === "delegate");
    assert.deepEqual(delegate.input_schema.properties.profile.enum, ["web-explorer"]);
    assert.ok(transcript.turns.every((x: any) => x.digestMatches === true), "rebuilt with the run's allowed profiles");
  });

  test("Idempotency-Key: same key and body give the same run; another body is 409; keys are per tenant", async () => {
    const t = h.tenant();
    const k = await h.key("client", t);
    const body = { offline: true, context: "c" };
    const a = await h.app.request("/v1/runs", postJson(k, body, { "idempotency-key": "k-1" }));
    assert.equal(a.status, 201);
    const runA = (await a.json()) as any;
    // Same body with its keys in another order is the same body.
    const b = await h.app.request("/v1/runs", postJson(k, { context: "c", offline: true }, { "idempotency-key": "k-1" }));
    assert.equal(b.status, 201);
    assert.equal(b.headers.get("idempotent-replayed"), "true");
    assert.equal(((await b.json()) as any).id, runA.id);

    const c = await problem(await h.app.request("/v1/runs", postJson(k, { offline: true, context: "another" }, { "idempotency-key": "k-1" })), 409);
    assert.match(c.detail, /different body/);

    const other = await h.key("client", h.tenant());
    const d = await h.app.request("/v1/runs", postJson(other, body, { "idempotency-key": "k-1" }));
    assert.equal(d.status, 201);
    assert.notEqual(((await d.json()) as any).id, runA.id);

    // Concurrent requests with one new key start one run.
    const racing = await Promise.all([0, 1, 2].map(() => h.app.request("/v1/runs", postJson(k, { offline: true, context: "race" }, { "idempotency-key": "k-race" }))));
    const created = await Promise.all(racing.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as any).id));
    assert.ok(created.length >= 1);
    assert.equal(new Set(created).size, 1);
    for (const r of racing.filter((r) => r.status !== 201)) await problem(r, 409);
    await waitForFinal(h.app, k, runA.id);
    const list = (await (await h.app.request("/v1/runs", { headers: bearer(k) })).json()) as any;
    assert.equal(list.data.length, 2, "one run for k-1 and one for k-race");
  });

  test("a submission that fails gives its Idempotency-Key back", async () => {
    const k = await h.key("client", h.tenant());
    await problem(await h.app.request("/v1/runs", postJson(k, { offline: true, context: "q", caps: { maxDepth: 5 } }, { "idempotency-key": "k-f" })), 422);
    const retry = await h.app.request("/v1/runs", postJson(k, { offline: true, context: "q" }, { "idempotency-key": "k-f" }));
    assert.equal(retry.status, 201);
  });

  test("events: JSON pages follow the log; `after` that is no event of the run is 400", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(client, { offline: true, context: "pages" }))).json()) as any;
    await waitForFinal(h.app, client, run.id);
    const all = (await (await h.app.request(`/v1/runs/${run.id}/events?limit=1000`, { headers: bearer(client) })).json()) as any;
    assert.ok(all.events.length > 20);
    assert.equal(all.events[0].type, "run_submitted", "recorded for workers first");
    // Checked by the run's Checker, then sealed by its host: the seal covers the Checker's stream, and comes last.
    assert.deepEqual(all.events.slice(-2).map((e: any) => e.type), ["check_completed", "run_sealed"], "checked, then sealed, last");
    const paged: number[] = [];
    for (let after = 0; ; ) {
      const page = (await (await h.app.request(`/v1/runs/${run.id}/events?limit=7&after=${after}`, { headers: bearer(client) })).json()) as any;
      paged.push(...page.events.map((e: any) => e.position));
      if (page.next === null) break;
      after = page.next;
    }
    assert.deepEqual(paged, all.events.map((e: any) => e.position));
    await problem(await h.app.request(`/v1/runs/${run.id}/events?after=999999999`, { headers: bearer(client) }), 400);
    await problem(await h.app.request(`/v1/runs/${run.id}/events?limit=abc`, { headers: bearer(client) }), 400);
  });

  test("SSE: a client that disconnects and resumes with Last-Event-ID gets every event exactly once, then `end`", { timeout: 120_000 }, async () => {
    const slow = await openHarness(ctx.store, { scriptedLatencyMs: 60 });
    try {
      const k = await slow.key("client", slow.tenant());
      const run = (await (await slow.app.request("/v1/runs", postJson(k, { offline: true, context: "live" }))).json()) as any;
      const seen: number[] = [];
      const sse = { headers: bearer(k, { accept: "text/event-stream" }) };
      const first = await slow.app.request(`/v1/runs/${run.id}/events`, sse);
      assert.equal(first.status, 200);
      assert.match(first.headers.get("content-type") ?? "", /text\/event-stream/);
      for await (const frame of sseFrames(first.body!)) {
        if (frame.id) seen.push(Number(frame.id));
        if (seen.length === 4) break; // disconnect mid-run
      }
      let ended = false;
      for (let attempt = 0; !ended && attempt < 20; attempt++) {
        const res = await slow.app.request(`/v1/runs/${run.id}/events`, { headers: { ...sse.headers, "last-event-id": String(seen.at(-1)) } });
        let n = 0;
        for await (const frame of sseFrames(res.body!)) {
          if (frame.event === "end") {
            ended = true;
            break;
          }
          if (frame.id) {
            seen.push(Number(frame.id));
            assert.equal(JSON.parse(frame.data!).position, Number(frame.id));
            if (++n === 9) break; // and again, every few events
          }
        }
      }
      assert.ok(ended, "the stream ends after the run stops");
      const log = (await (await slow.app.request(`/v1/runs/${run.id}/events?limit=1000`, { headers: bearer(k) })).json()) as any;
      assert.equal(new Set(seen).size, seen.length, "no duplicates");
      assert.deepEqual([...seen].sort((a, b) => a - b), log.events.map((e: any) => e.position).sort((a: number, b: number) => a - b), "no gaps");
    } finally {
      await slow.close();
    }
  });

  test("SSE sends heartbeats while a run is idle, and a bad Last-Event-ID is 400", { timeout: 120_000 }, async () => {
    const slow = await openHarness(ctx.store, { scriptedLatencyMs: 700, heartbeatMs: 100 });
    try {
      const k = await slow.key("client", slow.tenant());
      const run = (await (await slow.app.request("/v1/runs", postJson(k, { offline: true, context: "quiet" }))).json()) as any;
      const res = await slow.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(k, { accept: "text/event-stream" }) });
      let heartbeat = false;
      for await (const frame of sseFrames(res.body!)) {
        if (frame.comment === "heartbeat") {
          heartbeat = true;
          break;
        }
      }
      assert.ok(heartbeat);
      await problem(await slow.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(k, { accept: "text/event-stream", "last-event-id": "abc" }) }), 400);
      await problem(await slow.app.request(`/v1/runs/${run.id}/events`, { headers: bearer(k, { accept: "text/event-stream", "last-event-id": "999999999" }) }), 400);
      await slow.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST", headers: bearer(k) });
      await waitForFinal(slow.app, k, run.id);
    } finally {
      await slow.close();
    }
  });

  test("cancel: a running run stops as cancelled by the operator; cancelling it again is 409", async () => {
    const slow = await openHarness(ctx.store, { scriptedLatencyMs: 300 });
    try {
      const k = await slow.key("client", slow.tenant());
      const run = (await (await slow.app.request("/v1/runs", postJson(k, { offline: true, context: "stop me" }))).json()) as any;
      for (let i = 0; i < 400; i++) {
        const view = (await (await slow.app.request(`/v1/runs/${run.id}`, { headers: bearer(k) })).json()) as any;
        if (view.state === "running" && view.executors.turns + view.executors.children.length > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const res = await slow.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST", headers: bearer(k) });
      assert.equal(res.status, 202);
      const final = await waitForFinal(slow.app, k, run.id);
      assert.equal(final.state, "cancelled");
      assert.match(final.reason, /operator/);
      const events = (await (await slow.app.request(`/v1/runs/${run.id}/events?limit=1000`, { headers: bearer(k) })).json()) as any;
      assert.ok(events.events.some((e: any) => e.type === "cancelled" && e.data.by === "operator"));
      await problem(await slow.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST", headers: bearer(k) }), 409);
    } finally {
      await slow.close();
    }
  });

  test("cancel one executor: the Child stops, the run goes on; unknown executor is 404", async () => {
    const slow = await openHarness(ctx.store, { scriptedLatencyMs: 150 });
    try {
      const k = await slow.key("client", slow.tenant());
      const run = (await (await slow.app.request("/v1/runs", postJson(k, { offline: true, context: "children" }))).json()) as any;
      let child: string | undefined;
      for (let i = 0; i < 400 && !child; i++) {
        const view = (await (await slow.app.request(`/v1/runs/${run.id}`, { headers: bearer(k) })).json()) as any;
        child = view.executors.children.find((c: any) => c.status === "running")?.id;
        if (!child) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(child, "a Child was admitted");
      await problem(await slow.app.request(`/v1/runs/${run.id}/executors/${"0".repeat(8)}/cancel`, { method: "POST", headers: bearer(k) }), 404);
      const res = await slow.app.request(`/v1/runs/${run.id}/executors/${child}/cancel`, { method: "POST", headers: bearer(k) });
      assert.equal(res.status, 202);
      const final = await waitForFinal(slow.app, k, run.id);
      const node = final.executors.children.find((c: any) => c.id === child);
      assert.equal(node.status, "cancelled");
      assert.notEqual(final.executors.status, "running");
    } finally {
      await slow.close();
    }
  });

  test("cancelling a run while its Children work stops them too", async () => {
    const slow = await openHarness(ctx.store, { scriptedLatencyMs: 150 });
    try {
      const k = await slow.key("client", slow.tenant());
      const run = (await (await slow.app.request("/v1/runs", postJson(k, { offline: true, context: "stop them all" }))).json()) as any;
      let working: string[] = [];
      for (let i = 0; i < 400 && working.length === 0; i++) {
        const view = (await (await slow.app.request(`/v1/runs/${run.id}`, { headers: bearer(k) })).json()) as any;
        working = view.executors.children.filter((c: any) => c.status === "running").map((c: any) => c.id);
        if (working.length === 0) await new Promise((r) => setTimeout(r, 25));
      }
      assert.ok(working.length > 0, "Children were working");
      assert.equal((await slow.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST", headers: bearer(k) })).status, 202);
      const final = await waitForFinal(slow.app, k, run.id);
      assert.equal(final.state, "cancelled");
      // A Child may have finished in the moment between the poll and the cancel; none is left running.
      const statuses = working.map((id) => final.executors.children.find((c: any) => c.id === id).status);
      assert.ok(statuses.every((s) => s === "cancelled" || s === "settled"), statuses.join(", "));
      assert.ok(statuses.includes("cancelled"), statuses.join(", "));
    } finally {
      await slow.close();
    }
  });

  test("transcript, handoff and verify of a settled run", async () => {
    const run = (await (await h.app.request("/v1/runs", postJson(client, { offline: true, context: "audit me" }))).json()) as any;
    const final = await waitForFinal(h.app, client, run.id);
    const child = final.executors.children[0].id;

    const transcript = (await (await h.app.request(`/v1/runs/${run.id}/executors/${child}/transcript`, { headers: bearer(client) })).json()) as any;
    assert.equal(transcript.executorId, child);
    assert.ok(transcript.turns.length > 0);
    assert.ok(transcript.turns.every((t: any) => t.digestMatches === true));

    const handoff = await h.app.request(`/v1/runs/${run.id}/executors/${child}/handoff`, { headers: bearer(client) });
    assert.equal(handoff.status, 200);
    const body = (await handoff.json()) as any;
    assert.ok(Array.isArray(body.handoff.findings));
    await problem(await h.app.request(`/v1/runs/${run.id}/executors/${final.mainExecutorId}/handoff`, { headers: bearer(client) }), 404);
    await problem(await h.app.request(`/v1/runs/${run.id}/executors/nope/transcript`, { headers: bearer(client) }), 404);

    const verify = (await (await h.app.request(`/v1/runs/${run.id}/verify`, { headers: bearer(client) })).json()) as any;
    assert.equal(verify.ok, true, JSON.stringify(verify.problems));
    assert.equal(verify.streams.filter((s: any) => s.streamId.startsWith("executor-")).length, 5, "Main, three Children and the Checker");
    assert.match(verify.rootHash, /^[0-9a-f]{64}$/);
    assert.equal(verify.sealed.rootHash, verify.rootHash, "sealed by its host, and nothing moved since");
    assert.deepEqual(verify.problems, []);
  });

  test("auth: no key, a malformed header, an unknown or revoked key are 401 problems; key never logged", async () => {
    await problem(await h.app.request("/v1/runs"), 401);
    await problem(await h.app.request("/v1/runs", { headers: { authorization: "Basic abc" } }), 401);
    await problem(await h.app.request("/v1/runs", { headers: bearer("ariadne_unknown") }), 401);
    await problem(await h.app.request("/v1/runs", { headers: bearer(await h.revokedKey("admin", tenant)) }), 401);
    await h.app.request("/v1/runs", { headers: bearer(client) });
    assert.ok(h.logs.length > 0);
    for (const line of h.logs) {
      assert.doesNotMatch(line, /ariadne_[A-Za-z0-9_-]{20,}/);
      assert.doesNotMatch(line, /authorization/i);
    }
    const entry = JSON.parse(h.logs.at(-1)!);
    assert.deepEqual(Object.keys(entry).sort(), ["keyId", "level", "method", "ms", "msg", "path", "requestId", "status", "tenant", "time"]);
  });

  test("rate limit: 429 with Retry-After once a key's bucket is empty", async () => {
    const limited = await openHarness(ctx.store, { rateLimit: { perSecond: 0.5, burst: 2 } });
    try {
      const k = await limited.key("auditor", limited.tenant());
      assert.equal((await limited.app.request("/v1/runs", { headers: bearer(k) })).status, 200);
      assert.equal((await limited.app.request("/v1/runs", { headers: bearer(k) })).status, 200);
      const res = await limited.app.request("/v1/runs", { headers: bearer(k) });
      await problem(res, 429);
      assert.ok(Number(res.headers.get("retry-after")) >= 1);
      // Another key has its own bucket.
      const other = await limited.key("auditor", limited.tenant());
      assert.equal((await limited.app.request("/v1/runs", { headers: bearer(other) })).status, 200);
    } finally {
      await limited.close();
    }
  });

  test("--no-workers records the run (201, queued); another process's worker executes it", async () => {
    const idle = await openHarness(ctx.store, { workers: false });
    try {
      const k = await idle.key("client", idle.tenant());
      const res = await idle.app.request("/v1/runs", postJson(k, { offline: true, context: "for a worker" }));
      assert.equal(res.status, 201);
      const run = (await res.json()) as any;
      assert.ok(["queued", "running"].includes(run.state));
      // The file's other harness hosts a worker, as an `ariadne worker` process would.
      const final = await waitForFinal(idle.app, k, run.id);
      assert.equal(final.state, "settled");
    } finally {
      await idle.close();
    }
  });

  test("healthz, readyz, openapi.json from the code, and /docs from local files", async () => {
    assert.deepEqual(await (await h.app.request("/healthz")).json(), { status: "ok" });
    const ready = (await (await h.app.request("/readyz")).json()) as any;
    assert.equal(ready.status, "ready");
    const doc = (await (await h.app.request("/openapi.json")).json()) as any;
    assert.equal(doc.openapi, "3.1.0");
    for (const path of ["/v1/runs", "/v1/runs/{id}", "/v1/runs/{id}/cancel", "/v1/runs/{id}/executors/{eid}/cancel", "/v1/runs/{id}/events",
      "/v1/runs/{id}/executors/{eid}/transcript", "/v1/runs/{id}/executors/{eid}/handoff", "/v1/runs/{id}/verify", "/healthz", "/readyz"]) {
      assert.ok(doc.paths[path], `${path} is in the document`);
    }
    assert.ok(doc.components.schemas.SubmitRun.properties.question);
    const page = await (await h.app.request("/docs")).text();
    assert.match(page, /swagger-ui-bundle\.js/);
    assert.doesNotMatch(page, /https?:\/\//, "no CDN");
    const bundle = await h.app.request("/docs/swagger-ui-bundle.js");
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
    await problem(await h.app.request("/docs/../../package.json"), 404);
    await problem(await h.app.request("/nowhere"), 404);
  });
}));
