import { test } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { sleep } from "../../core/sleep.ts";

test("sleeping many times on one signal leaves no abort listener behind (no MaxListenersExceededWarning in an outage's backoff)", async () => {
  const stop = new AbortController();
  for (let i = 0; i < 20; i++) await sleep(1, stop.signal);
  assert.equal(getEventListeners(stop.signal, "abort").length, 0);
});

test("an abort ends the sleep at once", async () => {
  const stop = new AbortController();
  const t0 = Date.now();
  const slept = sleep(60_000, stop.signal);
  stop.abort();
  await slept;
  assert.ok(Date.now() - t0 < 5_000);
  await sleep(60_000, stop.signal); // already aborted: at once too
});
