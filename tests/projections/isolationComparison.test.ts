import { test } from "node:test";
import assert from "node:assert/strict";
import type { EventData, RecordedEvent } from "../../events/index.ts";
import { compareIsolation } from "../../projections/index.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "./log.ts";

// Priced as governance/prices.ts lists them: sonnet 3 and 15 USD per MTok, haiku 1 and 5.
const SONNET = "claude-sonnet-4-5";
const HAIKU = "claude-haiku-4-5";

const turn = (n: number, model: string, input: number, output: number): EventData<"turn"> => ({
  turn: n,
  request: { model, messageCount: n, toolNames: [], digest: String(n).repeat(64) },
  response: { content: [], stopReason: "tool_use" },
  usage: { inputTokens: input, outputTokens: output },
  model,
  provider: "anthropic",
  scripted: false,
  latencyMs: 10,
});
const finding = (claim: string, toolResults: string[]) => ({ claim, evidence: { toolResults, citations: [] }, confidence: "high" });
const handoff = (findings: unknown[]) => ({ summary: "s", findings, measurementBasis: { sources: [], dates: [], units: [], scope: "" }, artifacts: [], gaps: [], executionState: "completed", confidence: "high", caveats: [] });
const answer = (claims: { basis: string; citations: { executor: string; finding: number }[] }[]) => ({
  summary: "answer",
  sections: [{ heading: "H", claims: claims.map((c, i) => ({ text: `claim ${i}`, ...c })) }],
});

/** Main (sonnet: 1000/100 and 3000/200 tokens) delegates A (haiku: 2000/50, 4000/100), whose one finding cites its call a1; Main's answer: that finding observed, and a judgment. */
function delegatedRun(): RecordedEvent[] {
  const log = memoryLog("run-d");
  log.fact("main-d", "run_submitted", { question: "Q", options: {} }, "run-run-d");
  log.add("main-d", "executor_admitted", admittedData("main"));
  log.add("main-d", "turn", turn(1, SONNET, 1000, 100));
  log.add("main-d", "tool_called", { turn: 1, toolUseId: "d1", tool: "delegate", input: {}, effect: "idempotent", childExecutorId: "child-a" });
  log.add("child-a", "executor_admitted", admittedData("child", { parentExecutorId: "main-d", parentToolUseId: "d1" }));
  log.add("child-a", "turn", turn(1, HAIKU, 2000, 50));
  log.add("child-a", "tool_called", { turn: 1, toolUseId: "a1", tool: "web_fetch", input: { url: "https://x.test/" }, effect: "read_only" });
  log.add("child-a", "tool_completed", { toolUseId: "a1", tool: "web_fetch", output: "x", artifacts: [], sources: [] });
  log.add("child-a", "turn", turn(2, HAIKU, 4000, 100));
  log.add("child-a", "handoff_committed", { handoff: handoff([finding("fee is 0.29%", ["a1"])]), repairs: 0, forced: false });
  log.add("child-a", "settled", { outcome: "handed_off" });
  log.add("main-d", "turn", turn(2, SONNET, 3000, 200));
  log.add("main-d", "settled", { outcome: "answered", answer: answer([{ basis: "observed", citations: [{ executor: "child-a", finding: 0 }] }, { basis: "judgment", citations: [] }]) });
  return log.events;
}

/**
 * A single agent (sonnet: 1000/100, 5000/100, 9000/400) calls s1, commits its own evidence (finding 0 cites s1,
 * finding 1 cites a call that is not in the log) and answers citing both; the checker found one claim supported.
 */
function singleAgentRun(): RecordedEvent[] {
  const log = memoryLog("run-s");
  log.fact("main-s", "run_submitted", { question: "Q", options: { singleAgent: true } }, "run-run-s");
  log.add("main-s", "executor_admitted", admittedData("main", { singleAgent: true }));
  log.add("main-s", "turn", turn(1, SONNET, 1000, 100));
  log.add("main-s", "tool_called", { turn: 1, toolUseId: "s1", tool: "web_fetch", input: { url: "https://x.test/" }, effect: "read_only" });
  log.add("main-s", "tool_completed", { toolUseId: "s1", tool: "web_fetch", output: "x", artifacts: [], sources: [] });
  log.add("main-s", "turn", turn(2, SONNET, 5000, 100));
  log.add("main-s", "turn", turn(3, SONNET, 9000, 400));
  log.add("main-s", "handoff_committed", { handoff: handoff([finding("fee is 0.29%", ["s1"]), finding("fee was 0.38%", ["s9"])]), repairs: 0, forced: false });
  log.add("main-s", "settled", { outcome: "answered", answer: answer([{ basis: "observed", citations: [{ executor: "main-s", finding: 0 }] }, { basis: "observed", citations: [{ executor: "main-s", finding: 1 }] }]) });
  log.fact("main-s", "check_completed", { claims: [{ verdict: "supported" }, { verdict: "flagged" }] }, "run-run-s");
  return log.events;
}

test("compareIsolation gives Main's peak and total input tokens, total tokens, cost and claims supported, as computed by hand", () => {
  const c = compareIsolation({ runId: "run-d", events: delegatedRun() }, { runId: "run-s", events: singleAgentRun() });
  assert.deepEqual(c.delegated, {
    runId: "run-d",
    singleAgent: false,
    executors: 2,
    mainPeakInputTokens: 3000,
    mainInputTokens: 4000,
    mainOutputTokens: 300,
    // 1000+3000+2000+4000 in, 100+200+50+100 out
    inputTokens: 10_000,
    outputTokens: 450,
    totalTokens: 10_450,
    // Main: 4000 x 3 + 300 x 15 = 16 500; A: 6000 x 1 + 150 x 5 = 6 750 (micro-USD)
    costMicros: 23_250,
    estimated: false,
    claims: { total: 2, observed: 1, supported: 1, checkerSupported: null },
  });
  assert.deepEqual(c.singleAgent, {
    runId: "run-s",
    singleAgent: true,
    executors: 1,
    mainPeakInputTokens: 9000,
    mainInputTokens: 15_000,
    mainOutputTokens: 600,
    inputTokens: 15_000,
    outputTokens: 600,
    totalTokens: 15_600,
    // 15 000 x 3 + 600 x 15
    costMicros: 54_000,
    estimated: false,
    // finding 1 cites a call the log does not hold: not supported
    claims: { total: 2, observed: 2, supported: 1, checkerSupported: 1 },
  });
  // 9000/3000, 15000/4000, 15600/10450, 54000/23250, to two decimals
  assert.deepEqual(c.ratios, { mainPeakInputTokens: 3, mainInputTokens: 3.75, totalTokens: 1.49, costMicros: 2.32 });
});
