import assert from "node:assert/strict";
import { test } from "node:test";
import { admissionGate } from "../../runs/host/admissionGate.ts";

/** Keeps the event loop in callbacks `busyMs` of every `everyMs` (a spin counts as busy even when the machine deschedules the process). */
function keepBusy(busyMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      // spin
    }
  }, everyMs);
  return () => clearInterval(timer);
}

test("a worker hosting nothing takes a run at once", async () => {
  const gate = admissionGate({ busy: 0.1, windowMs: 1_000, maxHoldMs: 60_000 });
  let done = false;
  const ready = gate.ready(0).then(() => (done = true));
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(done, true, "ready(0) waited on a timer");
  await ready;
});

test("a busy loop holds the take until the hold's bound", async () => {
  const gate = admissionGate({ busy: 0.5, windowMs: 50, maxHoldMs: 300 });
  const stop = keepBusy(45, 50);
  try {
    await new Promise((resolve) => setTimeout(resolve, 120)); // the spinning has begun
    const started = performance.now();
    await gate.ready(1);
    assert.ok(performance.now() - started >= 300, `held ${(performance.now() - started).toFixed(0)} ms, not the 300 ms bound`);
  } finally {
    stop();
  }
});

test("an idle loop lets the take through well before the bound", async () => {
  const gate = admissionGate({ busy: 0.5, windowMs: 20, maxHoldMs: 60_000 });
  const started = performance.now();
  await gate.ready(3);
  assert.ok(performance.now() - started < 30_000, "an idle loop was held");
});

test("an abort ends the hold", async () => {
  const gate = admissionGate({ busy: 0.5, windowMs: 20, maxHoldMs: 60_000 });
  const stop = keepBusy(45, 50);
  const abort = new AbortController();
  try {
    setTimeout(() => abort.abort(), 200);
    const started = performance.now();
    await gate.ready(1, abort.signal);
    assert.ok(performance.now() - started < 30_000, "the abort did not end the hold");
  } finally {
    stop();
  }
});

test("busy 1 never holds; a busy share outside (0, 1] is refused", async () => {
  const stop = keepBusy(45, 50);
  try {
    let done = false;
    const ready = admissionGate({ busy: 1 }).ready(5).then(() => (done = true));
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(done, true);
    await ready;
  } finally {
    stop();
  }
  assert.throws(() => admissionGate({ busy: 0 }), /busy must be in \(0, 1\], got 0/);
  // An option given as undefined (a caller passing its own optional setting on) keeps the default.
  assert.doesNotThrow(() => admissionGate({ busy: undefined, windowMs: undefined, maxHoldMs: undefined }));
  assert.throws(() => admissionGate({ busy: 1.5 }), /busy must be in \(0, 1\]/);
});

test("queries waiting for the store's pool hold the take though the loop is idle, until they are served", async () => {
  let waiting = 5;
  const gate = admissionGate({ busy: 0.5, windowMs: 20, maxHoldMs: 60_000, waiting: () => waiting });
  let done = false;
  const ready = gate.ready(2).then(() => (done = true));
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(done, false, "taken while 5 queries waited for a connection");
  waiting = 0;
  await ready;
  assert.equal(done, true);
});
