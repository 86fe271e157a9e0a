import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { EventData, RecordedEvent } from "../../events/index.ts";
import { resolveCaps } from "../../governance/config.ts";
import { reportOfEvents } from "../../projections/index.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "./log.ts";

const MAIN = "main-pure";
const A = "child-a";
const B = "child-b";
const T0 = Date.parse("2026-12-01T10:00:00.000Z");
const RAW = "a".repeat(64);
const TEXT = "b".repeat(64);

const turn = (n: number, model: string, input: number, output: number, latencyMs: number, scripted = false): EventData<"turn"> => ({
  turn: n,
  request: { model, messageCount: n, toolNames: [], digest: String(n).repeat(64) },
  response: { content: [], stopReason: "tool_use" },
  usage: { inputTokens: input, outputTokens: output },
  model,
  provider: scripted ? "scripted" : "anthropic",
  scripted,
  latencyMs,
});
const page = (url: string, fetchedAt: string) => ({ kind: "web_page" as const, url: `${url}/`, normalizedUrl: url, status: 200, contentType: "text/html", fetchedAt, rawSha256: RAW, textSha256: TEXT, bytes: 10 });

/**
 * Main (claude-sonnet-4-5: 3 and 15 USD per MTok) delegates A (web-explorer: the
 * investigate caps; claude-haiku-4-5: 1 and 5) and B (compute-analyst: the Child
 * caps; scripted, so estimated). A fetches X, X again at offset 0 (a duplicate the
 * cache avoided) and X at offset 40000 (a cache hit, reading on); B fetches X
 * again from the network after the run had no host for 3 s (fetched again), and Y.
 */
function run(): RecordedEvent[] {
  const log = memoryLog();
  const at = (seconds: number) => (e: RecordedEvent) => Object.assign(e, { recordedAt: new Date(T0 + seconds * 1000) });
  const caps = resolveCaps({ run: { maxTokens: 100_000, maxCostMicros: 1_000_000, wallClockMs: 60_000 }, main: { maxTurns: 10 } });
  at(-5)(log.fact(MAIN, "run_submitted", { question: "Which fund?", options: { caps } }));
  at(0)(log.add(MAIN, "executor_admitted", admittedData("main")));
  at(0.5)(log.add(MAIN, "turn", turn(1, "claude-sonnet-4-5", 1000, 200, 800)));
  at(0.5)(log.add(MAIN, "tool_called", { turn: 1, toolUseId: "d1", tool: "delegate", input: {}, effect: "effectful", childExecutorId: A }));
  at(0.5)(log.add(MAIN, "tool_called", { turn: 1, toolUseId: "d2", tool: "delegate", input: {}, effect: "effectful", childExecutorId: B }));
  at(0.5)(log.add(MAIN, "budget_settled", { reservationId: "r1", actual: { tokens: 1200, costMicros: 6000 } }));
  const profile = (id: string) => ({ id, version: "1", sha256: "c".repeat(64) });
  at(1)(log.add(A, "executor_admitted", admittedData("child", { profile: profile("web-explorer") })));
  at(1.5)(log.add(A, "turn", turn(1, "claude-haiku-4-5", 500, 50, 300)));
  at(1.5)(log.add(A, "tool_called", { turn: 1, toolUseId: "a1", tool: "web_fetch", input: { url: "https://x.test/" }, effect: "read_only" }));
  at(2)(log.add(A, "tool_completed", { toolUseId: "a1", tool: "web_fetch", output: "x", artifacts: [], sources: [page("https://x.test", "2026-12-01T10:00:01.900Z")] }));
  at(2.5)(log.add(A, "turn", turn(2, "claude-haiku-4-5", 700, 100, 200)));
  at(2.5)(log.add(A, "tool_called", { turn: 2, toolUseId: "a2", tool: "web_fetch", input: { url: "https://x.test" }, effect: "read_only" }));
  at(2.5)(log.add(A, "tool_called", { turn: 2, toolUseId: "a3", tool: "web_fetch", input: { url: "https://x.test/", offset: 40000 }, effect: "read_only" }));
  at(3)(log.add(A, "tool_completed", { toolUseId: "a2", tool: "web_fetch", output: "x", artifacts: [], sources: [page("https://x.test", "2026-12-01T10:00:01.900Z")] }));
  at(3)(log.add(A, "tool_completed", { toolUseId: "a3", tool: "web_fetch", output: "x", artifacts: [], sources: [page("https://x.test", "2026-12-01T10:00:01.900Z")] }));
  at(4)(log.add(A, "budget_settled", { reservationId: "r2", actual: { tokens: 1350, costMicros: 1950 } }));
  at(1)(log.add(B, "executor_admitted", admittedData("child", { profile: profile("compute-analyst") })));
  at(1.2)(log.add(B, "turn", turn(1, "scripted:child", 400, 40, 0, true)));
  at(1.2)(log.add(B, "tool_called", { turn: 1, toolUseId: "b1", tool: "web_fetch", input: { url: "https://x.test/" }, effect: "read_only" }));
  at(1.2)(log.add(B, "tool_called", { turn: 1, toolUseId: "b2", tool: "web_fetch", input: { url: "https://y.test/" }, effect: "read_only" }));
  at(8.5)(log.add(B, "tool_completed", { toolUseId: "b1", tool: "web_fetch", output: "x", artifacts: [], sources: [page("https://x.test", "2026-12-01T10:00:08.400Z")] }));
  at(8.6)(log.add(B, "tool_completed", { toolUseId: "b2", tool: "web_fetch", output: "y", artifacts: [], sources: [page("https://y.test", "2026-12-01T10:00:08.500Z")] }));
  at(8.6)(log.add(B, "budget_settled", { reservationId: "r3", actual: { tokens: 440, costMicros: 0 } }));
  at(8)(log.fact(MAIN, "run_resumed", { downSince: new Date(T0 + 5000).toISOString() }));
  at(9)(log.add(MAIN, "turn", turn(2, "claude-sonnet-4-5", 3000, 500, 1200)));
  at(9)(log.add(MAIN, "budget_settled", { reservationId: "r4", actual: { tokens: 3500, costMicros: 16500 } }));
  return log.events;
}

describe("the run report", () => {
  test("per executor: turns, tool calls, tokens, cost priced per turn, model time, wall and hosted time, fetches, limits left", () => {
    const r = reportOfEvents("run-pure", run());
    assert.deepEqual(r.executors.map((e) => e.executorId), [MAIN, A, B]);
    const [main, a, b] = r.executors;
    // Main: 1000*3 + 200*15 = 6,000 and 3000*3 + 500*15 = 16,500 micro-USD.
    assert.deepEqual(
      { turns: main!.turns, toolCalls: main!.toolCalls, tokens: main!.tokens, cost: main!.cost, latency: main!.modelLatencyMs, peak: main!.peakInputTokens },
      { turns: 2, toolCalls: 2, tokens: { input: 4000, output: 700, cacheRead: null, cacheWrite: null, estimated: false }, cost: { micros: 22_500, estimated: false }, latency: 2000, peak: 3000 },
    );
    // From 10:00:00 to 10:00:09, less the 3 s (10:00:05 to 10:00:08) without a host.
    assert.equal(main!.wallTimeMs, 9000);
    assert.equal(main!.hostedTimeMs, 6000);
    assert.deepEqual(main!.limits, {
      turns: { cap: 10, used: 2, left: 8 },
      toolCalls: { cap: 25, used: 2, left: 23 },
      tokens: { cap: 600_000, used: 4700, left: 595_300 },
      wallClockMs: { cap: 1_800_000, used: 6000, left: 1_794_000 },
      fanOut: { cap: 8, used: 2, left: 6 },
    });
    // A: 500*1 + 50*5 = 750 and 700*1 + 100*5 = 1,200; its caps are the investigate ones, its turns the admission's 12.
    assert.deepEqual({ cost: a!.cost, tokens: a!.tokens.input + a!.tokens.output, latency: a!.modelLatencyMs, wall: a!.wallTimeMs }, { cost: { micros: 1950, estimated: false }, tokens: 1350, latency: 500, wall: 3000 });
    assert.deepEqual(a!.fetches, { calls: 3, network: 1, cacheHits: 2, duplicatesAvoided: 1, refetched: 0, networkBytes: 10 });
    assert.deepEqual(a!.limits.turns, { cap: 12, used: 2, left: 10 });
    assert.deepEqual(a!.limits.tokens, { cap: 60_000, used: 1350, left: 58_650 });
    assert.deepEqual(a!.limits.wallClockMs, { cap: 90_000, used: 3000, left: 87_000 });
    // B: scripted, so its tokens and its cost (nothing, at the scripted price) are estimates; the Child caps.
    assert.deepEqual(b!.cost, { micros: 0, estimated: true });
    assert.equal(b!.tokens.estimated, true);
    assert.deepEqual(b!.fetches, { calls: 2, network: 2, cacheHits: 0, duplicatesAvoided: 0, refetched: 1, networkBytes: 20 });
    assert.deepEqual(b!.limits.tokens, { cap: 150_000, used: 440, left: 149_560 });
    // 7.6 s from its admission at 10:00:01 to 10:00:08.6, 3 s of it without a host.
    assert.deepEqual([b!.wallTimeMs, b!.hostedTimeMs], [7600, 4600]);
  });

  test("per run: the executors summed, its limits left, and Main's context against its Children's reading", () => {
    const r = reportOfEvents("run-pure", run());
    assert.equal(r.question, "Which fund?");
    assert.equal(r.mainExecutorId, MAIN);
    assert.deepEqual(
      { turns: r.run.turns, toolCalls: r.run.toolCalls, tokens: r.run.tokens, cost: r.run.cost, latency: r.run.modelLatencyMs, wall: r.run.wallTimeMs, hosted: r.run.hostedTimeMs },
      { turns: 5, toolCalls: 7, tokens: { input: 5600, output: 890, cacheRead: null, cacheWrite: null, estimated: true }, cost: { micros: 24_450, estimated: true }, latency: 2500, wall: 9000, hosted: 6000 },
    );
    assert.deepEqual(r.run.fetches, { calls: 5, network: 3, cacheHits: 2, duplicatesAvoided: 1, refetched: 1, networkBytes: 30 });
    assert.deepEqual(r.limits, {
      tokens: { cap: 100_000, used: 6490, left: 93_510 },
      costMicros: { cap: 1_000_000, used: 24_450, left: 975_550 },
      wallClockMs: { cap: 60_000, used: 6000, left: 54_000 },
      depth: { cap: 2, used: 1, left: 1 },
      // The fetch budget counts pages read over the network (A's one, B's two) and their bytes.
      fetches: { cap: 200, used: 3, left: 197 },
      fetchBytes: { cap: 200 * 1024 * 1024, used: 30, left: 200 * 1024 * 1024 - 30 },
      // No model call searched server-side: the search budget (parseCaps' default) is whole.
      searches: { cap: 50, used: 0, left: 50 },
    });
    // Main's largest request was 3,000 tokens; its Children read 1,200 + 400.
    assert.deepEqual(r.isolation, { mainContextTokens: 3000, childrenInputTokens: 1600, children: 2, ratio: 0.53 });
  });

  test("the same report whatever order the streams are read in", () => {
    const events = run();
    const byStream = [...events].sort((x, y) => x.streamId.localeCompare(y.streamId) || x.streamVersion - y.streamVersion);
    assert.notDeepEqual(byStream.map((e) => e.eventId), events.map((e) => e.eventId));
    assert.deepEqual(reportOfEvents("run-pure", byStream), reportOfEvents("run-pure", events));
  });

  test("cache tokens are summed where a turn records them, priced at the model's cache rates, and null where none does (older turns fold as they are)", () => {
    const before = reportOfEvents("run-pure", run()).executors[1]!.cost.micros;
    const events = run().map((e) =>
      e.type === "turn" && e.streamId === `executor-${A}` ? ({ ...e, data: { ...e.data, usage: { ...(e.data as EventData<"turn">).usage, cacheReadInputTokens: 300, cacheCreationInputTokens: 50 } } } as RecordedEvent) : e,
    );
    const r = reportOfEvents("run-pure", events);
    const [main, a] = r.executors;
    assert.deepEqual([a!.tokens.cacheRead, a!.tokens.cacheWrite], [600, 100]);
    assert.deepEqual([main!.tokens.cacheRead, main!.tokens.cacheWrite], [null, null]);
    assert.deepEqual([r.run.tokens.cacheRead, r.run.tokens.cacheWrite], [600, 100]);
    // claude-haiku-4-5: 1 USD per MTok of input, so a cache read costs 0.1 and a cache write 1.25 micro-USD a token (each turn rounded up).
    assert.equal(a!.cost.micros - before, 2 * Math.ceil(300 * 0.1 + 50 * 1.25));
  });

  test("without caps in the log, a limit says so: its cap and what is left are null, the admission's limits still hold", () => {
    const r = reportOfEvents("run-pure", run().filter((e) => e.type !== "run_submitted"));
    assert.deepEqual(r.limits.tokens, { cap: null, used: 6490, left: null });
    assert.equal(r.question, null);
    assert.deepEqual(r.executors[0]!.limits.turns, { cap: 12, used: 2, left: 10 });
    assert.deepEqual(r.executors[0]!.limits.tokens, { cap: null, used: 4700, left: null });
  });
});
