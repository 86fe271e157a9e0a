import { test } from "node:test";
import assert from "node:assert/strict";
import { ModelCallError, type ModelCallErrorKind } from "../../models/modelCallError.ts";
import { backoffDelayMs, withRetries, type RetryPolicy } from "../../models/withRetries.ts";
import { rejection, within } from "./fixtures.ts";

const policy = (overrides: Partial<RetryPolicy> = {}): RetryPolicy => ({
  maxRetries: 3,
  initialDelayMs: 1,
  maxDelayMs: 5,
  random: () => 0.5,
  ...overrides,
});

const failing = (kind: ModelCallErrorKind, retryable = true) => new ModelCallError({ kind, retryable, message: kind });

test("backoff doubles per retry, stays within [delay/2, delay], and is capped", () => {
  const p = policy({ initialDelayMs: 100, maxDelayMs: 1_000 });
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, { ...p, random: () => 0 })),
    [50, 100, 200, 400, 500, 500],
  );
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((retry) => backoffDelayMs(retry, { ...p, random: () => 0.999999 })).map(Math.round),
    [100, 200, 400, 800, 1_000, 1_000],
  );
});

for (const kind of ["overloaded", "rate_limited", "api_error"] as const) {
  test(`a retryable ${kind} is retried until the attempt succeeds`, async () => {
    let calls = 0;
    const result = await withRetries(async () => {
      if (++calls < 3) throw failing(kind);
      return "ok";
    }, policy());
    assert.equal(result, "ok");
    assert.equal(calls, 3);
  });
}

for (const kind of ["stream_cut", "incomplete_stream"] as const) {
  test(`a ${kind} is surfaced on the first attempt, not retried`, async () => {
    let calls = 0;
    const e = await rejection(withRetries(async () => {
      calls++;
      throw failing(kind);
    }, policy()));
    assert.ok(e instanceof ModelCallError && e.kind === kind && e.attempts === 1);
    assert.equal(calls, 1);
  });
}

test("a non-retryable error and a foreign error are rethrown at once", async () => {
  let calls = 0;
  const e = await rejection(withRetries(async () => {
    calls++;
    throw failing("api_error", false);
  }, policy()));
  assert.ok(e instanceof ModelCallError && e.attempts === 1);
  const foreign = new TypeError("bug");
  assert.equal(await rejection(withRetries(async () => { calls++; throw foreign; }, policy())), foreign);
  assert.equal(calls, 2);
});

test("after maxRetries the last error is thrown with the attempt count", async () => {
  let calls = 0;
  const e = await rejection(withRetries(async () => {
    calls++;
    throw failing("overloaded");
  }, policy({ maxRetries: 2 })));
  assert.ok(e instanceof ModelCallError && e.kind === "overloaded" && e.attempts === 3);
  assert.equal(calls, 3);
});

test("a retry-after is honoured but never beyond maxDelayMs", async () => {
  const slow = new ModelCallError({ kind: "rate_limited", retryable: true, message: "wait", retryAfterMs: 60_000 });
  let calls = 0;
  const started = Date.now();
  await within(2_000, withRetries(async () => {
    if (++calls === 1) throw slow;
    return "ok";
  }, policy({ maxDelayMs: 30 })));
  assert.ok(Date.now() - started >= 25);
});
