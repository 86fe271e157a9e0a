import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { bodyDigest } from "../../http/middleware/idempotency.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, openHarness, postJson } from "./harness.ts";

// Issue 18.3: a reservation left by a crash between reserving a key and recording the run must not stick.
forEachEngine("Idempotency-Key reservations expire", (ctx) => describe("idempotency", () => {
  let h: Harness;
  let tenant: string;
  let key: string;
  before(async () => {
    h = await openHarness(ctx.store, { workers: false });
    tenant = h.tenant("idem");
    key = await h.key("client", tenant);
  });
  after(() => h.close());

  /** A reservation as a crashed request leaves it: taken, never completed nor released. */
  const crashedReservation = async (idempotencyKey: string, body: unknown, ageSeconds: number) =>
    sql`INSERT INTO ariadne_idempotency_keys (tenant, idempotency_key, request_sha256, run_id, created_at)
        VALUES (${tenant}, ${idempotencyKey}, ${bodyDigest(body)}, NULL, now() - make_interval(secs => ${ageSeconds}))`.execute(ctx.store.database.db);

  test("a reservation in progress answers 409 with Retry-After", async () => {
    const body = { offline: true, context: "stuck a moment" };
    await crashedReservation("fresh-1", body, 0);
    const res = await h.app.request("/v1/runs", postJson(key, body, { "idempotency-key": "fresh-1" }));
    assert.equal(res.status, 409);
    const retryAfter = Number(res.headers.get("retry-after"));
    assert.ok(retryAfter >= 1, `Retry-After: ${res.headers.get("retry-after")}`);
    assert.match(((await res.json()) as { detail: string }).detail, /in progress|being processed/);
  });

  test("a reservation in progress for over 10 minutes has expired: a retry takes it over and starts the run", async () => {
    const body = { offline: true, context: "crashed before the run was recorded" };
    await crashedReservation("stuck-1", body, 11 * 60);
    const res = await h.app.request("/v1/runs", postJson(key, body, { "idempotency-key": "stuck-1" }));
    assert.equal(res.status, 201, await res.clone().text());
    const run = (await res.json()) as { id: string };
    // And the key now names that run: a retry replays it.
    const again = await h.app.request("/v1/runs", postJson(key, body, { "idempotency-key": "stuck-1" }));
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(((await again.json()) as { id: string }).id, run.id);
  });

  test("a completed key is kept 24 hours, then may be used again", async () => {
    const first = await h.app.request("/v1/runs", postJson(key, { offline: true, context: "first" }, { "idempotency-key": "day-1" }));
    assert.equal(first.status, 201);
    assert.equal((await h.app.request("/v1/runs", postJson(key, { offline: true, context: "second" }, { "idempotency-key": "day-1" }))).status, 409);
    await sql`UPDATE ariadne_idempotency_keys SET created_at = now() - interval '25 hours' WHERE tenant = ${tenant} AND idempotency_key = 'day-1'`.execute(ctx.store.database.db);
    const later = await h.app.request("/v1/runs", postJson(key, { offline: true, context: "second" }, { "idempotency-key": "day-1" }));
    assert.equal(later.status, 201);
    assert.notEqual(((await later.json()) as { id: string }).id, ((await first.json()) as { id: string }).id);
  });

  test("the windows are configurable", async () => {
    const quick = await openHarness(ctx.store, { workers: false, idempotency: { inProgressMs: 200, completedMs: 200 } });
    try {
      const body = { offline: true, context: "quick expiry" };
      await crashedReservation("quick-1", body, 0);
      assert.equal((await quick.app.request("/v1/runs", postJson(key, body, { "idempotency-key": "quick-1" }))).status, 409);
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await quick.app.request("/v1/runs", postJson(key, body, { "idempotency-key": "quick-1" }))).status, 201);
    } finally {
      await quick.close();
    }
  });
}));
