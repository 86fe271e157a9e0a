import { test } from "node:test";
import assert from "node:assert/strict";
import { manualClock } from "../../core/clock.ts";
import { createRateLimiter } from "../../http/middleware/rateLimit.ts";

test("a caller gets its burst, then one request per 1/rate seconds, with Retry-After in whole seconds", () => {
  const clock = manualClock();
  const limiter = createRateLimiter({ perSecond: 0.5, burst: 3, clock });
  for (let i = 0; i < 3; i++) assert.deepEqual(limiter.take("k1"), { ok: true });
  assert.deepEqual(limiter.take("k1"), { ok: false, retryAfterSeconds: 2 });
  clock.advance(1_000);
  assert.deepEqual(limiter.take("k1"), { ok: false, retryAfterSeconds: 1 });
  clock.advance(1_000);
  assert.deepEqual(limiter.take("k1"), { ok: true });
  assert.deepEqual(limiter.take("k2"), { ok: true }, "each caller has its own bucket");
});

test("a bucket refills to its burst and no further", () => {
  const clock = manualClock();
  const limiter = createRateLimiter({ perSecond: 10, burst: 2, clock });
  limiter.take("k");
  limiter.take("k");
  clock.advance(60_000);
  assert.equal(limiter.take("k").ok, true);
  assert.equal(limiter.take("k").ok, true);
  assert.equal(limiter.take("k").ok, false);
});

test("answers carry the IETF draft RateLimit-Policy and RateLimit fields; a 429 says none left and when to retry", async () => {
  const { createApp } = await import("../../http/app.ts");
  const deps = { auth: "none", database: {}, runs: {}, reads: {}, hub: {}, rateLimit: { perSecond: 1, burst: 2 }, log: () => {} };
  const app = createApp(deps as never);
  const first = await app.request("/v1/nowhere");
  assert.equal(first.headers.get("ratelimit-policy"), '"key";q=2;w=2');
  assert.match(first.headers.get("ratelimit") ?? "", /^"key";r=1;t=\d+$/);
  await app.request("/v1/nowhere");
  const refused = await app.request("/v1/nowhere");
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "1");
  assert.match(refused.headers.get("ratelimit") ?? "", /^"key";r=0;t=\d+$/);
  assert.equal(((await refused.json()) as { requestId?: string }).requestId, refused.headers.get("x-request-id"));
});
