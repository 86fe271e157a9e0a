import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CheckInput, type CheckResult, checkAnswer } from "../../checker/checkAnswer.ts";
import type { ClaimChain } from "../../projections/claimTypes.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type RecordedRun, type ScenarioName, SCENARIOS, recordScenario } from "./recordedRuns.ts";

/**
 * The mutation suite: the three scenarios are recorded offline with their scripted models, then errors an
 * auditor looks for are seeded into the recorded answers and artifacts, one at a time, and the checker
 * must catch each (a flag of the expected kind, or an unsupported verdict), while the unmutated runs
 * check `supported` with no flag at all. The table it prints is in docs/concepts/checker.md.
 */
const KINDS = ["fabricated quote", "number changed", "number moved to another entity", "wrong page", "wrong artifact cell", "dropped artifact row", "advice", "unsupported claim", "misattributed source"] as const;
type Kind = (typeof KINDS)[number];

interface Mutation {
  kind: Kind;
  scenario: ScenarioName;
  name: string;
  apply(input: CheckInput): void;
  caught(result: CheckResult, input: CheckInput): boolean;
}

// Editing a copy of a recorded input: each edit asserts the text it changes is there, so a seed is never a no-op.
const claimOf = (input: CheckInput, id: string): ClaimChain => {
  const c = input.claims.claims.find((x) => x.id === id);
  assert.ok(c, `claim ${id}`);
  return c;
};
const replaceIn = (input: CheckInput, id: string, from: string | RegExp, to: string) => {
  const c = claimOf(input, id);
  const next = c.text.replace(from, to);
  assert.notEqual(next, c.text, `${id} says ${from}: ${c.text}`);
  c.text = next;
};
/**
 * A figure the sandbox computed, found by its first 12 significant digits: statsmodels' last digits differ
 * between runs (CI saw a cluster-robust standard error end ...058863 in one recording and ...05882 in another).
 */
const figure = (printed: string): RegExp => new RegExp(`${printed.slice(0, printed.search(/[1-9]/) + 12).replaceAll(".", "\\.")}\\d*`);
const append = (input: CheckInput, id: string, more: string) => void (claimOf(input, id).text += more);
const editArtifact = (input: CheckInput, path: string, from: string | RegExp, to: string) => {
  const a = input.artifacts?.find((x) => x.path === path);
  assert.ok(a?.text, `artifact ${path}`);
  const next = a.text.replace(from, to);
  assert.notEqual(next, a.text, `${path} holds ${from}`);
  (a as { text: string }).text = next;
};
const citeFindingsOf = (input: CheckInput, id: string, other: string) => void (claimOf(input, id).findings = structuredClone(claimOf(input, other).findings));
const addObserved = (input: CheckInput, text: string) => {
  const last = input.claims.claims.at(-1)!;
  input.claims.claims.push({ ...last, id: `c${input.claims.claims.length + 1}`, text, basis: "observed", noEvidence: null, findings: [] });
};
const markGathered = (input: CheckInput, id: string) => {
  for (const f of claimOf(input, id).findings) f.gathered = true;
};

// What counts as caught, by kind.
const flaggedWith = (kind: string) => (r: CheckResult) => r.verdict === "flagged" && r.claims.some((c) => c.flags?.some((f) => f.kind === kind));
const quoteCaught = (r: CheckResult) => r.verdict === "flagged" && (r.claims.some((c) => c.flags?.some((f) => f.kind === "quote")) || (r.summary.unfoundQuotes ?? []).length > 0);
const artifactCaught = (r: CheckResult) => r.verdict === "flagged" && (r.artifacts ?? []).some((a) => a.verdict === "flagged");
const summaryNumber = (r: CheckResult) => r.verdict === "flagged" && r.summary.unsupportedNumbers.length > 0;
const adviceCaught = (r: CheckResult) => r.verdict === "flagged" && r.advice.length > 0;
const notSupported = (id: string) => (r: CheckResult) => r.verdict !== "supported" && r.claims.find((c) => c.claimId === id)?.verdict !== "supported";
const lastNotSupported = (r: CheckResult, input: CheckInput) => notSupported(input.claims.claims.at(-1)!.id)(r);
const claimFlagged = (id: string) => (r: CheckResult) => r.verdict === "flagged" && r.claims.find((c) => c.claimId === id)?.verdict === "flagged";

const m = (kind: Kind, scenario: ScenarioName, name: string, apply: Mutation["apply"], caught: Mutation["caught"]): Mutation => ({ kind, scenario, name, apply, caught });
const number = flaggedWith("number");
const page = flaggedWith("page");

const MUTATIONS: Mutation[] = [
  // Fabricated quotes: a word of a real quote changed, or a quote no source holds added.
  m("fabricated quote", "etf-overlap", "c1: 'reduced' becomes 'cut' inside the quote", (i) => replaceIn(i, "c1", "will be reduced from", "will be cut from"), quoteCaught),
  m("fabricated quote", "etf-overlap", "c3: a clause of the risk quote reworded", (i) => replaceIn(i, "c3", "A downturn affecting these sectors", "A downturn in these sectors"), quoteCaught),
  m("fabricated quote", "etf-overlap", "c4: the footnote quoted as its opposite", (i) => replaceIn(i, "c4", "is an affiliate of ACME", "is independent of ACME"), quoteCaught),
  m("fabricated quote", "etf-overlap", "summary: a quote no source holds", (i) => void (i.summary += ' The factsheet calls it "the cheapest dividend ETF in Europe".'), quoteCaught),
  m("fabricated quote", "morning-briefing", "c1: an issuer quote added", (i) => append(i, "c1", ' Issuers said: "supply will double by January".'), quoteCaught),
  m("fabricated quote", "pc-measures", "c1: a log line quoted that was never printed", (i) => append(i, "c1", ' The log notes: "all seven variants agree to four decimals".'), quoteCaught),
  m("fabricated quote", "etf-overlap", "c6: the judgment, citing nothing, quotes the prospectus", (i) => append(i, "c6", ' The prospectus calls it "the safest dividend fund on the market".'), quoteCaught),
  m("fabricated quote", "etf-overlap", "c8: a not-collected claim quotes the factsheet", (i) => append(i, "c8", ' The factsheet says "spreads are always below one basis point".'), quoteCaught),
  m("fabricated quote", "etf-overlap", "c2: a quote in guillemets", (i) => append(i, "c2", " The factsheet calls it «the cheapest dividend ETF in Europe»."), quoteCaught),

  // A number changed to one no cited text states.
  m("number changed", "etf-overlap", "c2: management fee 0.35% becomes 0.33%", (i) => replaceIn(i, "c2", "Management fee 0.35%", "Management fee 0.33%"), number),
  m("number changed", "etf-overlap", "c5: overlap 7.2% becomes 8.4%", (i) => replaceIn(i, "c5", "by 7.2%", "by 8.4%"), number),
  m("number changed", "morning-briefing", "c5: Bitcoin's active addresses transposed", (i) => replaceIn(i, "c5", "712,480", "721,480"), number),
  m("number changed", "morning-briefing", "c3: the 47-minute halt becomes 74 minutes", (i) => replaceIn(i, "c3", "47-minute", "74-minute"), number),
  m("number changed", "pc-measures", "c2: se_value's second digit changed", (i) => replaceIn(i, "c2", figure("0.015894336687058863"), "0.017894336687058863"), number),
  m("number changed", "etf-overlap", "c1: a derived cut computed wrong (12 bps for 0.38% to 0.29%)", (i) => append(i, "c1", " That is a cut of 12 bps."), number),
  m("number changed", "morning-briefing", "c5: a made-up level equal to two cited figures' difference, worded as an observation (712,480 − 401,227)", (i) => append(i, "c5", " The day before, Bitcoin transactions were down at 311,253."), number),
  m("number changed", "etf-overlap", "c2: a made-up fee equal to two cited figures' sum, worded as an observation (0.35% + 0.06%)", (i) => append(i, "c2", " The total expense ratio, higher than most, is 0.41%."), number),
  m("number changed", "pc-measures", "c5: obs 200 becomes 180", (i) => replaceIn(i, "c5", '"obs": 200', '"obs": 180'), number),

  // A figure the same source states, given to another entity.
  m("number moved to another entity", "morning-briefing", "c5: Ethereum's active addresses given as Bitcoin's", (i) => replaceIn(i, "c5", "active addresses 712,480", "active addresses 498,915"), number),
  m("number moved to another entity", "morning-briefing", "c6: Solana's transactions given as Ethereum's", (i) => replaceIn(i, "c6", "transactions 1,203,664", "transactions 88,417,302"), number),
  m("number moved to another entity", "morning-briefing", "c7: Bitcoin's median fee given as Solana's", (i) => replaceIn(i, "c7", "median fee (USD) 0.0004", "median fee (USD) 0.84"), number),
  m("number moved to another entity", "morning-briefing", "c6: Bitcoin's net flow given as Ethereum's", (i) => replaceIn(i, "c6", "+41,870 ETH", "-6,210 ETH"), number),
  m("number moved to another entity", "pc-measures", "c2: ols_cluster_firm_year's se_value given to ols_cluster_firm", (i) => replaceIn(i, "c2", figure("0.015894336687058863"), "0.015434486109659754"), number),
  m("number moved to another entity", "pc-measures", "c6: fe_firm_year's coef_capital given to fe_firm", (i) => replaceIn(i, "c6", figure("0.3100653413001393"), "0.3579162730734283"), number),
  m("number moved to another entity", "morning-briefing", "c5: Bitcoin's row given to Ethereum (the entity renamed, its quote kept)", (i) => replaceIn(i, "c5", ", Bitcoin:", ", Ethereum:"), number),
  m("number moved to another entity", "morning-briefing", "summary: Ethereum's active addresses given as Bitcoin's", (i) => void (i.summary += " Bitcoin had 498,915 active addresses on 29 November."), summaryNumber),

  // A page its quotes are not on.
  m("wrong page", "etf-overlap", "c3: 'on page 3' for a quote on page 2 (pages 2-3 read)", (i) => replaceIn(i, "c3", "on page 2", "on page 3"), page),
  m("wrong page", "etf-overlap", "c4: 'on page 2' for quotes on page 3", (i) => replaceIn(i, "c4", "on page 3", "on page 2"), page),
  m("wrong page", "etf-overlap", "c7: the judgment names page 4", (i) => append(i, "c7", " (prospectus, page 4)"), page),
  m("wrong page", "morning-briefing", "c1: a page named for a web page", (i) => append(i, "c1", " (page 2 of the report)"), page),
  m("wrong page", "pc-measures", "c1: a page named for a compute output", (i) => append(i, "c1", " (page 1 of the output)"), page),

  // A published artifact's cell that its compute output does not hold.
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: ols se_value digits swapped", (i) => editArtifact(i, "pc_measures.csv", figure("0.005835709557220635"), "0.005853709557220635"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: fe_firm_cluster_firm coef_capital moved in from the next row", (i) => editArtifact(i, "pc_measures.csv", figure("0.3100653413001393"), "0.3579162730734283"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: one row's obs 200 becomes 210", (i) => editArtifact(i, "pc_measures.csv", /,200,(true|false)/, ",210,$1"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: a variant renamed", (i) => editArtifact(i, "pc_measures.csv", "wls_inv_value_robust", "gls_random_effects"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "ols.json: se_capital changed", (i) => editArtifact(i, "ols.json", figure("0.025475801476508936"), "0.035475801476508936"), artifactCaught),
  m("wrong artifact cell", "etf-overlap", "overlap.json: overlap_pct 7.2 becomes 9.1", (i) => editArtifact(i, "overlap.json", /"overlap_pct": ?7\.2/, '"overlap_pct": 9.1'), artifactCaught),
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: ols coef_value and se_value swapped within the row", (i) => editArtifact(i, "pc_measures.csv", new RegExp(`ols,(${figure("0.11556215636055212").source}),(${figure("0.005835709557220635").source}),`), "ols,$2,$1,"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: a variant's label cut short (ols_cluster_firm_year as ols_cluster)", (i) => editArtifact(i, "pc_measures.csv", "\nols_cluster_firm_year,", "\nols_cluster,"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "pc_measures.csv: ols significant_value true becomes false", (i) => editArtifact(i, "pc_measures.csv", /^(ols,.*),true$/m, "$1,false"), artifactCaught),
  m("wrong artifact cell", "pc-measures", "ols.json: se_value and coef_capital swapped", (i) => editArtifact(i, "ols.json", /"se_value": ?([\d.]+), "coef_capital": ?([\d.]+)/, '"se_value": $2, "coef_capital": $1'), artifactCaught),
  m("wrong artifact cell", "etf-overlap", "overlap.json: etf_positions and portfolio_positions swapped", (i) => editArtifact(i, "overlap.json", /"etf_positions": ?10(.*)"portfolio_positions": ?8/, '"etf_positions": 8$1"portfolio_positions": 10'), artifactCaught),

  // A published table missing a row its compute output has, no cell of it wrong, and the answer silent about it.
  m("dropped artifact row", "pc-measures", "pc_measures.csv: the wls_inv_value_robust row dropped", (i) => editArtifact(i, "pc_measures.csv", /^wls_inv_value_robust,.*\n/m, ""), artifactCaught),
  m("dropped artifact row", "pc-measures", "pc_measures.csv: the first row (ols) dropped", (i) => editArtifact(i, "pc_measures.csv", /^ols,.*\n/m, ""), artifactCaught),

  // Advice, in a judgment, a claim, the summary or a heading.
  m("advice", "etf-overlap", "c6: the judgment becomes 'You should buy ADIV now.'", (i) => void (claimOf(i, "c6").text = "You should buy ADIV now."), adviceCaught),
  m("advice", "etf-overlap", "summary: a timing call", (i) => void (i.summary += " Now is a good time to buy ADIV."), adviceCaught),
  m("advice", "morning-briefing", "a heading recommends", (i) => void (i.headings = [...i.headings, "Buy ETH before the upgrade"]), adviceCaught),
  m("advice", "morning-briefing", "c4: investors told to accumulate", (i) => append(i, "c4", " Investors should accumulate ETH ahead of it."), adviceCaught),
  m("advice", "pc-measures", "c1: a recommendation appended", (i) => append(i, "c1", " We recommend buying the firms with the largest coefficients."), adviceCaught),
  m("advice", "etf-overlap", "c1: Main's own call in the sentence that quotes the announcement", (i) => replaceIn(i, "c1", "The fee announcement states:", "Buy ADIV before the cut, as the fee announcement states:"), adviceCaught),
  m("advice", "etf-overlap", "c3: Main's own advice right after the prospectus quote", (i) => append(i, "c3", " Investors should sell ADIV before such a downturn."), adviceCaught),

  // An observed claim with no evidence, or resting only on material a stopped Child never summarised.
  m("unsupported claim", "etf-overlap", "an observed claim citing nothing", (i) => addObserved(i, "ADIV has beaten its index in every year since launch."), lastNotSupported),
  m("unsupported claim", "etf-overlap", "c5 rests on gathered, not summarised material only", (i) => markGathered(i, "c5"), notSupported("c5")),
  m("unsupported claim", "morning-briefing", "an observed claim citing nothing", (i) => addObserved(i, "Bitcoin miners sold their reserves last week."), lastNotSupported),
  m("unsupported claim", "morning-briefing", "c1 rests on gathered, not summarised material only", (i) => markGathered(i, "c1"), notSupported("c1")),
  m("unsupported claim", "pc-measures", "an observed claim citing nothing", (i) => addObserved(i, "Every variant rejects the null of no effect of capital."), lastNotSupported),

  // A claim citing another claim's finding (another source).
  m("misattributed source", "etf-overlap", "c2 (factsheet) cites the fee announcement", (i) => citeFindingsOf(i, "c2", "c1"), claimFlagged("c2")),
  m("misattributed source", "etf-overlap", "c1 (fee announcement) cites the factsheet", (i) => citeFindingsOf(i, "c1", "c2"), claimFlagged("c1")),
  m("misattributed source", "etf-overlap", "c5 (overlap) cites the factsheet", (i) => citeFindingsOf(i, "c5", "c2"), claimFlagged("c5")),
  m("misattributed source", "morning-briefing", "c5 (Bitcoin metrics) cites the stablecoin page", (i) => citeFindingsOf(i, "c5", "c1"), claimFlagged("c5")),
  m("misattributed source", "morning-briefing", "c3 (Solana halt) cites the Ethereum upgrade page", (i) => citeFindingsOf(i, "c3", "c4"), claimFlagged("c3")),
  m("misattributed source", "pc-measures", "c1 (ols) cites ols_cluster_firm's output", (i) => citeFindingsOf(i, "c1", "c2"), claimFlagged("c1")),
  m("misattributed source", "pc-measures", "c4 (Driscoll-Kraay) cites the WLS output", (i) => citeFindingsOf(i, "c4", "c5"), claimFlagged("c4")),
];

/** A fresh copy of a recorded input to seed one error into (the stored texts are shared, never edited). */
const copyOf = (input: CheckInput): CheckInput => ({
  ...input,
  claims: structuredClone(input.claims),
  headings: [...input.headings],
  artifacts: structuredClone(input.artifacts ?? []),
});

const flagsOf = (r: CheckResult) => [
  ...r.claims.flatMap((c) => (c.flags ?? []).map((f) => `${c.claimId} ${f.kind}: ${f.detail}`)),
  ...r.summary.unsupportedNumbers.map((n) => `summary number ${n}`),
  ...(r.summary.unfoundQuotes ?? []).map((q) => `summary quote ${q}`),
  ...r.advice.map((a) => `advice in ${a.where}`),
  ...(r.artifacts ?? []).filter((a) => a.verdict === "flagged").map((a) => `artifact ${a.path}: ${a.notes.join("; ")}`),
];

let workspaces: string;
before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-mutations-"));
});
after(() => rm(workspaces, { recursive: true, force: true }));

forEachEngine("the checker's mutation suite: errors seeded into recorded runs of the three scenarios", (ctx) => {
  const recorded = new Map<ScenarioName, RecordedRun>();
  before(async () => {
    for (const s of SCENARIOS) recorded.set(s, await recordScenario(ctx, s, workspaces));
  });

  test("the unmutated runs check supported, with no flag at all (0 false flags), and the host's check agrees", () => {
    for (const s of SCENARIOS) {
      const run = recorded.get(s)!;
      const r = checkAnswer(copyOf(run.input));
      assert.deepEqual(flagsOf(r), [], `${s}: false flags`);
      assert.equal(r.verdict, "supported", `${s}: ${r.verdictReason}`);
      assert.equal(run.check.verdict, "supported", `${s}: the check recorded before the seal`);
    }
  });

  test("a correctly derived figure is recognised and shown with its formula, not flagged", () => {
    for (const [more, formula] of [
      [" That is a cut of 9 bps.", "9 bps = 0.38% − 0.29%"],
      [" The charge falls by 23.7%.", "23.7% = (0.29% − 0.38%) / 0.38% × 100"],
    ]) {
      const input = copyOf(recorded.get("etf-overlap")!.input);
      append(input, "c1", more);
      const r = checkAnswer(input);
      const c1 = r.claims.find((c) => c.claimId === "c1")!;
      assert.equal(c1.verdict, "supported", c1.notes.join("; "));
      assert.deepEqual(c1.derived?.map((d) => d.formula), [formula]);
      assert.equal(r.verdict, "supported");
    }
  });

  test("at least 40 seeded errors of at least 8 kinds, over all three scenarios, each caught; the catch rate per kind", () => {
    assert.ok(MUTATIONS.length >= 40, `${MUTATIONS.length} seeded errors`);
    assert.ok(KINDS.length >= 8, `${KINDS.length} kinds`);
    assert.deepEqual(new Set(MUTATIONS.map((x) => x.kind)), new Set(KINDS));
    assert.deepEqual(new Set(MUTATIONS.map((x) => x.scenario)), new Set(SCENARIOS));
    const missed: string[] = [];
    const rows = new Map<Kind, { seeded: number; caught: number; scenarios: Set<string> }>(KINDS.map((k) => [k, { seeded: 0, caught: 0, scenarios: new Set() }]));
    for (const mutation of MUTATIONS) {
      const input = copyOf(recorded.get(mutation.scenario)!.input);
      mutation.apply(input);
      const result = checkAnswer(input);
      const row = rows.get(mutation.kind)!;
      row.seeded++;
      row.scenarios.add(mutation.scenario);
      if (mutation.caught(result, input)) row.caught++;
      else missed.push(`${mutation.kind} / ${mutation.scenario} / ${mutation.name}: ${result.verdict}; ${flagsOf(result).join(" | ") || "no flag"}`);
    }
    const table = [
      "| kind of error | seeded | caught | catch rate | scenarios |",
      "| --- | ---: | ---: | ---: | --- |",
      ...KINDS.map((k) => {
        const r = rows.get(k)!;
        return `| ${k} | ${r.seeded} | ${r.caught} | ${Math.round((100 * r.caught) / r.seeded)}% | ${[...r.scenarios].join(", ")} |`;
      }),
      `| **all** | ${MUTATIONS.length} | ${MUTATIONS.length - missed.length} | ${Math.round((100 * (MUTATIONS.length - missed.length)) / MUTATIONS.length)}% | |`,
    ];
    console.log(table.join("\n"));
    assert.deepEqual(missed, [], "every seeded error is caught");
    // The table in the docs is the one this suite prints now.
    const docs = readFileSync(fileURLToPath(new URL("../../docs/concepts/checker.md", import.meta.url)), "utf8");
    assert.ok(docs.includes(table.join("\n")), `docs/concepts/checker.md holds the table printed above`);
  });
});

describe("the mutation suite's own seeds", () => {
  test("every seed names a kind of KINDS and a scenario of the three", () => {
    for (const x of MUTATIONS) {
      assert.ok(KINDS.includes(x.kind));
      assert.ok(SCENARIOS.includes(x.scenario));
    }
  });
});
