import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type BudgetTotals, budgetReminders, childLimitReminder, childReminders, timeReminders } from "../../governance/index.ts";

const totals = (spentTokens: number, spentCostMicros = 0): BudgetTotals => ({
  spentTokens,
  reservedTokens: 0,
  maxTokens: 600_000,
  spentCostMicros,
  reservedCostMicros: 0,
  maxCostMicros: 5_000_000,
});

/** Raises what the rules say, remembering keys as a run does. */
function raiseAll(raised: Set<string>, ...steps: BudgetTotals[]) {
  return steps.map((t) => {
    const out = budgetReminders(t, raised);
    for (const r of out) raised.add(r.key);
    return out.map((r) => r.key);
  });
}

describe("Remind rules", () => {
  it("raises nothing below 50%", () => {
    assert.deepEqual(budgetReminders(totals(299_999), new Set()), []);
  });

  it("raises the 80% token fact once, with the objective numbers in the text", () => {
    const raised = new Set<string>();
    const keys = raiseAll(raised, totals(300_000), totals(400_000), totals(480_000), totals(500_000), totals(590_000));
    assert.deepEqual(keys, [["run_tokens@50"], [], ["run_tokens@80"], [], []]);
    const [eighty] = budgetReminders(totals(480_000), new Set(["run_tokens@50"]));
    assert.match(eighty.text, /480,000 of its 600,000 tokens \(80%, past 80%\); 120,000 are left/);
    assert.deepEqual(eighty.facts, { measure: "run_tokens", threshold: 0.8, used: 480_000, cap: 600_000 });
  });

  it("raises only the highest threshold when a jump passes two, and never the lower one later", () => {
    const raised = new Set<string>();
    assert.deepEqual(raiseAll(raised, totals(200_000), totals(510_000), totals(520_000)), [[], ["run_tokens@80"], []]);
  });

  it("keeps different facts apart: tokens and cost coexist", () => {
    const out = budgetReminders(totals(300_000, 4_000_000), new Set());
    assert.deepEqual(out.map((r) => r.key), ["run_tokens@50", "run_cost@80"]);
    assert.match(out[1].text, /cost \$4\.00 of its \$5\.00 cap/);
  });

  it("raises time left from the run's wall clock", () => {
    const run = { openedAt: new Date("2026-01-01T00:00:00Z"), wallClockMs: 30 * 60_000 };
    assert.deepEqual(timeReminders(run, new Date("2026-01-01T00:10:00Z"), new Set()), []);
    const [r] = timeReminders(run, new Date("2026-01-01T00:24:00Z"), new Set(["run_wall_clock@50"]));
    assert.equal(r.key, "run_wall_clock@80");
    assert.match(r.text, /24 min of the run's 30 min have passed \(past 80%\); about 6 min are left/);
    assert.deepEqual(timeReminders(run, new Date("2026-01-01T00:25:00Z"), new Set([r.key])), []);
  });

  it("tells a finished Child from one that stopped early, once each", () => {
    const children = {
      a: { consumed: true, handoff: { executionState: "completed", confidence: "high" } },
      b: { consumed: true, handoff: { executionState: "partial", confidence: "low" } },
      c: { consumed: true },
      d: { consumed: false },
    };
    const out = childReminders(children, new Set());
    assert.deepEqual(out.map((r) => r.key), ["child_finished:a", "child_stopped_early:b", "child_stopped_early:c"]);
    assert.match(out[1].text, /stopped early: its handoff is partial \(confidence low\)/);
    assert.deepEqual(childReminders(children, new Set(out.map((r) => r.key))), []);
  });

  it("names the limit that stopped a Child, one key per Child and limit", () => {
    const r = childLimitReminder({ executorId: "c1", profile: { id: "web-explorer" } }, "executor_tool_calls", "tool call limit reached (25 of 25 calls for this executor)");
    assert.equal(r.key, "child_limit:c1:executor_tool_calls");
    assert.match(r.text, /Child c1 \(web-explorer\) reached a limit: tool call limit reached \(25 of 25/);
  });
});
