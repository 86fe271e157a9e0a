import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { scoreRun } from "../../eval/scoreRun.ts";
import { summarize } from "../../eval/summarize.ts";
import { ACCURACY_MARGIN, Baseline, compareToBaseline } from "../../eval/compareToBaseline.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "../projections/log.ts";

const MAIN = "main-pure";
const CHILD = "child-pure";
const IDLE = "child-idle";
const TEXT_SHA = "b".repeat(64);
const RAW_SHA = "a".repeat(64);
const PAGE_TEXT = "ADIV report. The charge is 0.29% a year. It holds many stocks.";
// claude-haiku-4-5: $1 per million input tokens, $5 per million output: one and five micro-USD a token.
const MODEL = "claude-haiku-4-5";
const turn = (n: number, inputTokens: number, outputTokens: number, content: unknown[] = [{ type: "text", text: "…" }]) => ({
  turn: n,
  request: { model: MODEL, messageCount: n, toolNames: [], digest: String(n).repeat(64) },
  response: { content, stopReason: "tool_use" },
  usage: { inputTokens, outputTokens },
  model: MODEL,
  provider: "anthropic",
  scripted: false,
  latencyMs: 1,
});

/**
 * A hand-built run: Main delegates two Children; one fetches a page twice (the second from the run's cache)
 * and hands off two findings, the other hands off nothing. Main's answer has an observed claim its quote
 * supports (0.29%), an observed claim with a number the page does not state (`holdings` is the worse
 * answer's choice), a judgment, and a citation of a finding that is not there.
 */
function handBuiltRun(holdings = "1,500", extra: { text: string; basis: string; citations: unknown[] }[] = []): RecordedEvent[] {
  const log = memoryLog();
  log.add(MAIN, "executor_admitted", { ...admittedData("main"), model: MODEL });
  log.add(MAIN, "turn", turn(1, 100, 20) as never);
  log.add(CHILD, "executor_admitted", { ...admittedData("child"), model: MODEL });
  log.add(IDLE, "executor_admitted", { ...admittedData("child"), model: MODEL });
  log.add(IDLE, "turn", turn(1, 50, 10) as never);
  log.add(IDLE, "settled", { outcome: "failed", reason: "gave up" } as never);
  log.add(CHILD, "turn", turn(1, 10, 5) as never);
  const source = { kind: "web_page" as const, url: "https://x.test/", finalUrl: "https://x.test/", status: 200, contentType: "text/html", fetchedAt: "2026-12-01T00:00:00.000Z", rawSha256: RAW_SHA, textSha256: TEXT_SHA, bytes: 9 };
  for (const id of ["toolu_f1", "toolu_f2"]) {
    log.add(CHILD, "tool_called", { turn: 1, toolUseId: id, tool: "web_fetch", input: { url: "https://x.test/" }, effect: "read_only" });
    log.add(CHILD, "tool_completed", { toolUseId: id, tool: "web_fetch", output: "page", artifacts: [], sources: [source] });
  }
  log.add(CHILD, "turn", turn(2, 10, 5) as never);
  const quote = { toolUseId: "toolu_f1", text: "0.29%", source: { sha256: TEXT_SHA, charStart: 27, charEnd: 32 } };
  const findings = [
    { claim: "The charge is 0.29%.", evidence: { toolResults: ["toolu_f1"], citations: [], quotes: [quote] }, confidence: "high" },
    { claim: "It holds many stocks.", evidence: { toolResults: ["toolu_f2"], citations: [], quotes: [{ ...quote, text: "many stocks" }] }, confidence: "medium" },
  ];
  log.add(CHILD, "handoff_committed", { handoff: { summary: "s", findings }, repairs: 0, forced: false });
  log.add(CHILD, "settled", { outcome: "handed_off" });
  log.add(MAIN, "turn", turn(2, 300, 40) as never);
  const claims = [
    { text: "The charge is 0.29% a year.", basis: "observed", citations: [{ executor: CHILD, finding: 0 }] },
    { text: `It holds ${holdings} stocks.`, basis: "observed", citations: [{ executor: CHILD, finding: 1 }] },
    { text: "It suits long-term holders.", basis: "judgment", citations: [] },
    { text: "A finding that is not there.", basis: "observed", citations: [{ executor: CHILD, finding: 4 }] },
    ...extra,
  ];
  log.add(MAIN, "settled", { outcome: "answered", answer: { summary: "ADIV's charge and holdings.", sections: [{ heading: "Fees", claims }] } });
  // Ten seconds from the first event to the last.
  return log.events.map((e, i, all) => ({ ...e, recordedAt: new Date(Date.UTC(2026, 11, 1, 0, 0, i === all.length - 1 ? 10 : 0)) }));
}

const evalCase = {
  id: "hand-built",
  variant: "delegating" as const,
  minCoverage: 1,
  expected: ["charge is 0.29%", { id: "holdings", pattern: "holds \\d+ stocks" }, "ongoing charge"],
  forbidden: ["guaranteed", { pattern: "long-term holders" }],
};
const texts = new Map([[TEXT_SHA, PAGE_TEXT]]);

describe("scoreRun: a run's metrics from its events and the checker", () => {
  test("a hand-built run scores the hand-computed values", () => {
    const s = scoreRun({ evalCase, runId: "run-pure", events: handBuiltRun(), texts });
    assert.deepEqual(
      { ...s, failures: undefined },
      {
        caseId: "hand-built",
        variant: "delegating",
        runId: "run-pure",
        answered: true,
        // "charge is 0.29%" is there; "holds 1,500 stocks" does not match \d+ then " stocks"; "ongoing charge" is not there.
        coverage: 1 / 3,
        missing: ["holdings", "ongoing charge"],
        forbiddenFound: ["/long-term holders/"],
        claims: 4,
        observedClaims: 3,
        // Three observed claims: c1 supported; c2 flagged (1,500 is not in the page); c4 quotes nothing.
        supportRate: 1 / 3,
        citations: 3,
        // c4 cites finding 4, which the handoff does not have.
        citationValidity: 2 / 3,
        fabricatedCitations: 1,
        // 0.29% (c1) is in the page, 1,500 (c2) is not; the judgment and summary state none.
        numbersChecked: 2,
        numberFaithfulness: 1 / 2,
        adviceViolations: 0,
        mainPeakInputTokens: 300,
        mainInputTokens: 400,
        // Main 400 + 60, the Child 20 + 10, the idle Child 50 + 10.
        tokens: 550,
        // 470 input tokens at 1 micro-USD, 80 output at 5.
        costMicros: 870,
        costEstimated: false,
        supportedClaims: 1,
        tokensPerSupportedClaim: 550,
        costMicrosPerSupportedClaim: 870,
        wastedChildTokens: 60,
        wastedChildren: 1,
        // The second fetch of the same page at the same offset came from the run's cache.
        duplicateFetches: 1,
        wallTimeMs: 10_000,
        failures: undefined,
      },
    );
    assert.deepEqual(s.failures, [
      "coverage 33.3% < 100%: missing holdings; ongoing charge",
      "forbidden: /long-term holders/",
      "numbers faithful 50.0% (1 of 2 not in the cited sources)",
      "citation validity 66.7%",
      "1 fabricated citations",
    ]);
  });

  test("advice in a claim is counted", () => {
    const s = scoreRun({ evalCase, runId: "run-pure", events: handBuiltRun("many", [{ text: "You should buy ADIV now.", basis: "judgment", citations: [] }]), texts });
    assert.equal(s.adviceViolations, 1);
    assert.equal(s.supportRate, 2 / 3, "with 'many' instead of 1,500, c2 is supported");
  });
});

describe("the baseline gate on accuracy (support rate, number faithfulness, citation validity)", () => {
  const score = (holdings: string) => scoreRun({ evalCase, runId: "run-pure", events: handBuiltRun(holdings), texts });
  const baseline = Baseline.parse({ cases: [score("many")] });

  test("an equal answer passes", () => {
    assert.deepEqual(compareToBaseline([score("many")], baseline), []);
  });

  test("a deliberately worse answer (a number its source does not state) fails on support rate, faithfulness and supported claims", () => {
    const worse = compareToBaseline([score("1,500")], baseline);
    assert.deepEqual(worse.map((r) => [r.metric, r.baseline, r.now]), [["supportRate", 2 / 3, 1 / 3], ["numberFaithfulness", 1, 1 / 2], ["supportedClaims", 2, 1]]);
  });

  test("a drop within the margin passes; a case missing from the result fails", () => {
    const within = { ...score("many"), supportRate: 2 / 3 - ACCURACY_MARGIN };
    assert.deepEqual(compareToBaseline([within], baseline), []);
    assert.deepEqual(compareToBaseline([], baseline).map((r) => r.metric), ["case"]);
  });
});

describe("a suite's summary", () => {
  test("means of the accuracy metrics, sums of what must be zero and of what was spent", () => {
    const worse = scoreRun({ evalCase, runId: "run-pure", events: handBuiltRun("1,500"), texts });
    const better = scoreRun({ evalCase, runId: "run-pure", events: handBuiltRun("many"), texts });
    const s = summarize([worse, better]);
    assert.deepEqual(
      [s.cases, s.supportRate, s.numberFaithfulness, s.citationValidity, s.fabricatedCitations, s.tokens, s.costMicros],
      [2, (1 / 3 + 2 / 3) / 2, (1 / 2 + 1) / 2, 2 / 3, 2, 1100, 1740],
    );
  });
});
