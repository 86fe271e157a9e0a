import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { Baseline, compareToBaseline } from "../../eval/compareToBaseline.ts";
import { renderTable } from "../../eval/renderTable.ts";
import { scoreRun } from "../../eval/scoreRun.ts";
import { scoreGoldRun } from "../../eval/gold/scoreGoldRun.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "../projections/log.ts";

const MAIN = "main-gate";
const CHILD = "child-gate";
const TEXT_SHA = "c".repeat(64);
const RAW_SHA = "d".repeat(64);
const MODEL = "claude-haiku-4-5";
// Nine facts, one sentence each, every one with its own number: what a good answer cites.
const FACTS = Array.from({ length: 9 }, (_, i) => `Fund ${String.fromCharCode(65 + i)} charges ${(0.1 + i / 100).toFixed(2)}% a year.`);
const PAGE = FACTS.join(" ");
const turn = (n: number) => ({
  turn: n,
  request: { model: MODEL, messageCount: n, toolNames: [], digest: String(n).repeat(64) },
  response: { content: [{ type: "text", text: "…" }], stopReason: "tool_use" },
  usage: { inputTokens: 100, outputTokens: 10 },
  model: MODEL,
  provider: "anthropic",
  scripted: false,
  latencyMs: 1,
});

type Claim = { text: string; basis: "observed" | "judgment" | "not_collected"; citations: { executor: string; finding: number }[] };

/** Nine observed claims, each citing the finding that quotes its sentence: the good answer. */
const goodClaims = (): Claim[] => FACTS.map((f, i) => ({ text: f, basis: "observed", citations: [{ executor: CHILD, finding: i }] }));

/** A run whose Child fetched the page and quoted each fact; Main answers with `claims`. */
function run(claims: Claim[], summary = "What each fund charges."): RecordedEvent[] {
  const log = memoryLog();
  log.add(MAIN, "executor_admitted", { ...admittedData("main"), model: MODEL });
  log.add(MAIN, "turn", turn(1) as never);
  log.add(CHILD, "executor_admitted", { ...admittedData("child"), model: MODEL });
  log.add(CHILD, "turn", turn(1) as never);
  const source = { kind: "web_page" as const, url: "https://funds.test/", finalUrl: "https://funds.test/", status: 200, contentType: "text/html", fetchedAt: "2026-12-01T00:00:00.000Z", rawSha256: RAW_SHA, textSha256: TEXT_SHA, bytes: PAGE.length };
  log.add(CHILD, "tool_called", { turn: 1, toolUseId: "toolu_page", tool: "web_fetch", input: { url: "https://funds.test/" }, effect: "read_only" });
  log.add(CHILD, "tool_completed", { toolUseId: "toolu_page", tool: "web_fetch", output: PAGE, artifacts: [], sources: [source] });
  log.add(CHILD, "turn", turn(2) as never);
  const findings = FACTS.map((f) => {
    const at = PAGE.indexOf(f);
    return { claim: f, evidence: { toolResults: ["toolu_page"], citations: [], quotes: [{ toolUseId: "toolu_page", text: f, source: { sha256: TEXT_SHA, charStart: at, charEnd: at + f.length } }] }, confidence: "high" };
  });
  log.add(CHILD, "handoff_committed", { handoff: { summary: "s", findings }, repairs: 0, forced: false });
  log.add(CHILD, "settled", { outcome: "handed_off" });
  log.add(MAIN, "turn", turn(2) as never);
  log.add(MAIN, "settled", { outcome: "answered", answer: { summary, sections: [{ heading: "Charges", claims }] } });
  return log.events;
}

const texts = new Map([[TEXT_SHA, PAGE]]);
// The case expects every fund's charge, as the page states it.
const evalCase = { id: "nine-charges", variant: "delegating" as const, minCoverage: 1, expected: FACTS.map((f) => f.replace(/\.$/, "")), forbidden: [] };
const score = (claims: Claim[]) => scoreRun({ evalCase, runId: "run-gate", events: run(claims), texts });
const baseline = Baseline.parse({ cases: [score(goodClaims())] });

describe("the eval gate catches seeded errors", () => {
  test("the unmutated answer passes, with nine supported claims, and holds against its own baseline", () => {
    const s = score(goodClaims());
    assert.deepEqual([s.failures, s.coverage, s.supportedClaims, s.supportRate], [[], 1, 9, 1]);
    assert.deepEqual(compareToBaseline([s], baseline), []);
  });

  test("seeded: every claim turned not_collected (the pc-measures run without its sandbox) scores 0, fails the case and fails --baseline", () => {
    const s = score(goodClaims().map((c) => ({ text: `Not collected: ${c.text}`, basis: "not_collected" as const, citations: [] })));
    // Support reads 0/0 as 100%: that is why coverage and the supported-claim count are what catch it.
    assert.deepEqual([s.supportRate, s.observedClaims, s.coverage, s.supportedClaims], [1, 0, 0, 0]);
    assert.match(s.failures.join("; "), /^coverage 0% < 100%/);
    assert.deepEqual(compareToBaseline([s], baseline).map((r) => r.metric), ["coverage", "supportedClaims"]);
  });

  test("seeded: the expected phrase only in a judgment claim, or in a flagged one, is not covered", () => {
    const claims = goodClaims();
    claims[0] = { ...claims[0]!, basis: "judgment", citations: [] };
    assert.deepEqual(score(claims).missing, [evalCase.expected[0]]);
    const flagged = goodClaims();
    // The phrase is there, but with a figure the page does not state beside it: a flagged claim covers nothing.
    flagged[1] = { ...flagged[1]!, text: `${FACTS[1]!.replace(/\.$/, "")}, or 4.5% with fees.` };
    const s = score(flagged);
    assert.deepEqual(s.missing, [evalCase.expected[1]]);
  });

  test("seeded: one wrong number fails the case without --baseline", () => {
    const claims = goodClaims();
    claims[4] = { ...claims[4]!, text: claims[4]!.text.replace("0.14%", "0.41%") };
    const s = score(claims);
    assert.equal(s.numberFaithfulness, 8 / 9);
    assert.ok(s.failures.includes("numbers faithful 88.9% (1 of 9 not in the cited sources)"), s.failures.join("; "));
  });

  test("seeded: dropping three of nine claims fails --baseline (what is left is all supported)", () => {
    const s = score(goodClaims().slice(0, 6));
    assert.equal(s.supportRate, 1);
    const regressions = compareToBaseline([{ ...s, coverage: 1 }], baseline);
    // Even were coverage not gated (a case expecting less), the supported-claim count is.
    assert.deepEqual(regressions.map((r) => [r.metric, r.baseline, r.now]), [["supportedClaims", 9, 6]]);
  });

  test("a gap the case expects named must stand in a not_collected claim, and an artifact it expects must have been published", () => {
    const claims = [...goodClaims(), { text: "Not collected: what Fund J charges.", basis: "not_collected" as const, citations: [] }];
    const named = scoreRun({ evalCase: { ...evalCase, gaps: ["Fund J"] }, runId: "run-gate", events: run(claims), texts });
    assert.deepEqual([named.gapsNotNamed, named.failures], [[], []]);
    // Seeded: the gap mentioned only in an observed claim's text is not named as a gap.
    const unnamed = scoreRun({ evalCase: { ...evalCase, gaps: ["Fund A"] }, runId: "run-gate", events: run(claims), texts });
    assert.deepEqual(unnamed.failures, ["gaps not named as not collected: Fund A"]);
    const unpublished = scoreRun({ evalCase: { ...evalCase, artifacts: ["charges.csv"] }, runId: "run-gate", events: run(goodClaims()), texts });
    assert.deepEqual(unpublished.failures, ["not published: charges.csv"]);
  });

  test("the table labels a case whose expected phrases came from its own script as plumbing", () => {
    const [, , row] = renderTable([{ ...score(goodClaims()), graded: "plumbing" }]);
    assert.match(row!, /^\| nine-charges \| delegating \| pass \|.* \| plumbing \|$/);
  });

  test("a gold case is graded on the supported claims alone: the answer in a not_collected claim, or only in the summary, scores 0", () => {
    const gold = { id: "fund-d", question: "What does Fund D charge?", answer: 0.13, answer_type: "number" as const, tolerance: 0, evidence: ["https://funds.test/"], corpus: ".", corpusDir: ".", line: 1 };
    const grade = (claims: Claim[], summary?: string) => scoreGoldRun(gold, "run-gate", run(claims, summary), texts);
    const good = grade([goodClaims()[3]!]);
    assert.deepEqual([good.accuracy, good.evidenceRecall, good.quoteSupport], [1, 1, 1]);
    // Seeded: the one claim stating it turned not_collected, the summary still saying it.
    const gap = grade([{ text: `Not collected: ${FACTS[3]}`, basis: "not_collected", citations: [] }], FACTS[3]);
    assert.deepEqual([gap.accuracy, gap.failures[0]], [0, "wrong: no number within 0 of 0.13"]);
    // Seeded: a judgment stating it, the summary too.
    assert.equal(grade([{ text: FACTS[3]!, basis: "judgment", citations: [] }], FACTS[3]).accuracy, 0);
  });
});
