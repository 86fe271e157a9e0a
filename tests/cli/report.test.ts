import { after, before, describe as describeEverywhere, test } from "node:test";
import { dealt } from "../support/testShare.ts";
import assert from "node:assert/strict";
import { type RecordedEvent, intentOf } from "../../events/index.ts";
import { openStore } from "../../events/openStore.ts";
import { projectRun } from "../../projections/index.ts";
import { type CliStore, STACK_LINE, ariadne, cliStore } from "./ariadneProcess.ts";

// One recorded run read several ways: on one Node line of `npm test`, the second (tests/support/testShare.ts).
const describe = dealt(describeEverywhere, 1);

describe("ariadne report RUN: what a run spent, per run and per executor", () => {
  let store: CliStore;
  let runId: string;
  let events: RecordedEvent[];
  let spentTokens: number;
  before(async () => {
    store = await cliStore("report");
    const run = await ariadne(["run", "--json", ...store.args], store.env);
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;
    const { store: log, close } = await openStore(store.open);
    try {
      events = await log.readRun(runId);
      // The budget projection's settled tokens: what the report's run token limit must count.
      spentTokens = (await projectRun(log, runId)).budget.run.spent.tokens;
    } finally {
      await close();
    }
  });
  after(() => store?.dispose());

  /** An executor's turns, straight from the log. */
  const turnsOf = (executorId: string) =>
    events.filter((e): e is RecordedEvent<"turn"> => e.type === "turn" && e.streamId === `executor-${executorId}`).map((e) => e.data);

  test("--json: each executor's turns, tokens and fetches are its stream's; the run's are their sums; limits count what governance settled", async () => {
    const { code, stdout, stderr } = await ariadne(["report", runId, "--json", ...store.args], store.env);
    assert.equal(code, 0, stderr);
    const r = JSON.parse(stdout);
    assert.equal(r.runId, runId);
    const admitted = events.filter((e) => e.type === "executor_admitted");
    assert.equal(r.executors.length, admitted.length);
    assert.equal(r.executors[0].role, "main");
    for (const e of r.executors) {
      const turns = turnsOf(e.executorId);
      assert.equal(e.turns, turns.length);
      assert.equal(e.tokens.input, turns.reduce((s, t) => s + t.usage.inputTokens, 0));
      assert.equal(e.tokens.output, turns.reduce((s, t) => s + t.usage.outputTokens, 0));
      assert.equal(e.peakInputTokens, Math.max(...turns.map((t) => t.usage.inputTokens)));
      assert.equal(e.modelLatencyMs, Math.round(turns.reduce((s, t) => s + t.latencyMs, 0) * 100) / 100);
      // Scripted turns: estimated tokens, priced at the scripted price.
      assert.deepEqual(e.cost, { micros: 0, estimated: true });
      assert.ok(e.wallTimeMs > 0 && e.limits.turns.left === e.limits.turns.cap - e.turns);
    }
    const fetches = events.filter((e) => e.type === "tool_completed" && (e.data as { tool: string }).tool === "web_fetch").length;
    assert.ok(fetches > 0);
    assert.equal(r.run.fetches.calls, fetches);
    assert.equal(r.run.turns, events.filter((e) => e.type === "turn").length);
    assert.equal(r.run.toolCalls, events.filter((e) => intentOf(e)).length);
    assert.equal(r.run.tokens.input, r.executors.reduce((s: number, e: any) => s + e.tokens.input, 0));
    assert.equal(r.limits.tokens.used, spentTokens);
    assert.equal(r.limits.tokens.left, r.limits.tokens.cap - spentTokens);
    const children = r.executors.filter((e: any) => e.parentExecutorId === r.mainExecutorId);
    assert.deepEqual(r.isolation, {
      mainContextTokens: r.executors[0].peakInputTokens,
      childrenInputTokens: children.reduce((s: number, e: any) => s + e.tokens.input, 0),
      children: children.length,
      ratio: Math.round((children.reduce((s: number, e: any) => s + e.tokens.input, 0) / r.executors[0].peakInputTokens) * 100) / 100,
    });
  });

  test("text: the run's line, its limits, the isolation dividend, then one block per executor with the same figures", async () => {
    const [text, json] = await Promise.all([ariadne(["report", runId, ...store.args], store.env), ariadne(["report", runId, "--json", ...store.args], store.env)]);
    assert.equal(text.code, 0, text.stderr);
    const r = JSON.parse(json.stdout);
    assert.match(text.stdout, new RegExp(`^run ${runId}\nquestion: `));
    assert.match(text.stdout, new RegExp(`^  ${r.run.turns} turns · ${r.run.toolCalls} tool calls · ~${r.run.tokens.input}\\+${r.run.tokens.output} tokens, estimated \\(cache not recorded\\) · cost \\$0\\.00, estimated · model `, "m"));
    assert.match(text.stdout, new RegExp(`^  fetches: ${r.run.fetches.calls} \\(${r.run.fetches.network} from the network, ${r.run.fetches.cacheHits} from the run's cache, ${r.run.fetches.duplicatesAvoided} duplicates avoided`, "m"));
    assert.match(text.stdout, /^ {2}limits left: run tokens [\d,]+ of 600,000 · cost \$[\d.]+ of \$5\.00 · wall clock [\d.]+ s of 1800\.0 s · delegation depth 1 of 2$/m);
    const isolation = r.isolation;
    assert.match(text.stdout, new RegExp(`^  isolation: Main's context ${isolation.mainContextTokens.toLocaleString("en-US")} tokens \\(its largest request\\) · its ${isolation.children} Children read ${isolation.childrenInputTokens.toLocaleString("en-US")} tokens \\(${isolation.ratio}x`, "m"));
    for (const e of r.executors) {
      assert.match(text.stdout, new RegExp(`^${e.role} ${e.executorId}.* · model ${e.model} · depth ${e.depth}\n  ${e.turns} turns · ${e.toolCalls} tool calls · ~${e.tokens.input}\\+${e.tokens.output} tokens`, "m"));
    }
    assert.match(text.stdout, /^ {2}limits left: turns \d+ of \d+ · tool calls \d+ of \d+ · tokens [\d,]+ of [\d,]+ · wall clock [\d.]+ s of [\d.]+ s · Children \d+ of 8$/m);
  });

  test("bad usage is one line, exit 2; an unknown run is one line, exit 1; --help has the usage", async () => {
    for (const args of [["report"], ["report", runId, "c1"], ["report", runId, "--bogus"]]) {
      const bad = await ariadne([...args, ...store.args], store.env);
      assert.equal(bad.code, 2, `${args.join(" ")}: ${bad.stderr}`);
      assert.match(bad.stderr, /^ariadne: (report takes exactly one run id|Unknown option '--bogus')/);
    }
    const missing = await ariadne(["report", "00000000-0000-0000-0000-000000000000", ...store.args], store.env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^ariadne: run 00000000-0000-0000-0000-000000000000 has no events in this store; check the id/);
    assert.equal(missing.stderr.trim().split("\n").length, 1);
    assert.doesNotMatch(missing.stderr, STACK_LINE);
    const help = await ariadne(["report", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: ariadne report RUN \[--json\]/);
    assert.match((await ariadne(["--help"])).stdout, /^ {2}report RUN {9}what a run spent/m);
  });
});
