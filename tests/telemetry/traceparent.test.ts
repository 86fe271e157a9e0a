import { test } from "node:test";
import assert from "node:assert/strict";
import { traceOfTraceparent } from "../../telemetry/index.ts";
import { planRun } from "../../runs/index.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const SPAN = "00f067aa0ba902b7";

test("a W3C traceparent names the run's trace and the caller's span, with its sampled flag", () => {
  assert.deepEqual(traceOfTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, parentSpanId: SPAN, sampled: true });
  assert.deepEqual(traceOfTraceparent(` 00-${TRACE.toUpperCase()}-${SPAN}-00 `), { traceId: TRACE, parentSpanId: SPAN, sampled: false });
  // A later version may carry more fields after the flags.
  assert.deepEqual(traceOfTraceparent(`01-${TRACE}-${SPAN}-01-extra`), { traceId: TRACE, parentSpanId: SPAN, sampled: true });
});

test("an invalid traceparent is ignored, as the W3C spec asks: the run starts its own trace", () => {
  for (const bad of [undefined, "", "garbage", `ff-${TRACE}-${SPAN}-01`, `00-${"0".repeat(32)}-${SPAN}-01`, `00-${TRACE}-${"0".repeat(16)}-01`, `00-${TRACE}-${SPAN}-01-extra`, `00-${TRACE.slice(1)}-${SPAN}-01`]) {
    assert.equal(traceOfTraceparent(bad), undefined, String(bad));
  }
});

test("planRun records the submitter's traceparent with the run's options; none asked, none planned (submitRun then draws one)", async () => {
  const plan = await planRun({ offline: true, traceparent: `00-${TRACE}-${SPAN}-01` }, { modelConfigured: false, nothingAsked: "scenario" });
  assert.deepEqual(plan.options.trace, { traceId: TRACE, parentSpanId: SPAN, sampled: true });
  const none = await planRun({ offline: true, traceparent: "nonsense" }, { modelConfigured: false, nothingAsked: "scenario" });
  assert.equal(none.options.trace, undefined);
});
