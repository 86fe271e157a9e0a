import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CONFIGURED_CAPS, clockStop, fetchStop, parseCaps, reservationStop, resolveCaps, searchAllowance, toolStop, turnStop, turnToolStop } from "../../governance/index.ts";

const caps = resolveCaps({ delegation: { maxDepth: 2, maxFanOut: 3 } });
const limits = { maxTurns: 12, maxToolCalls: 40, maxHandoffRepairs: 2, maxFailedModelCalls: 3 };
const executor = { toolCalls: 0, limits, depth: 0, children: {} };
const call = (name: string) => ({ name });
const none = { toolCalls: 0, delegations: 0 };
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe("limit checks (pure)", () => {
  it("turns: the lower of the cap and the limit frozen at admission", () => {
    assert.equal(turnStop({ turn: 11, limits }, caps.investigate), null);
    assert.deepEqual(turnStop({ turn: 12, limits }, caps.child), { limit: "executor_turns", reason: "turn limit reached (12 of 12 turns)" });
    assert.equal(turnStop({ turn: 15, limits: { ...limits, maxTurns: 50 } }, caps.investigate)?.limit, "executor_turns");
  });

  it("wall clocks: the run's from its start, the executor's from its admission", () => {
    const clocks = (now: number, admitted: number) => ({ now: t(now), runOpenedAt: t(0), executorAdmittedAt: t(admitted) });
    assert.equal(clockStop(caps, caps.investigate, clocks(89, 0)), null);
    assert.deepEqual(clockStop(caps, caps.investigate, clocks(100, 10)), {
      limit: "executor_wall_clock",
      reason: "wall clock of 90 s used (90 s since admission)",
    });
    assert.equal(clockStop(caps, caps.main, clocks(1800, 1700))?.limit, "run_wall_clock");
  });

  it("tool calls count this turn's approvals; delegations their depth and fan-out", () => {
    assert.equal(toolStop({ ...executor, toolCalls: 24 }, call("search_corpus"), caps, caps.child, none), null);
    assert.equal(toolStop({ ...executor, toolCalls: 24 }, call("search_corpus"), caps, caps.child, { toolCalls: 1, delegations: 0 })?.limit, "executor_tool_calls");
    assert.equal(toolStop({ ...executor, depth: 2 }, call("delegate"), caps, caps.child, none)?.limit, "delegation_depth");
    assert.equal(toolStop({ ...executor, depth: 2 }, call("search_corpus"), caps, caps.child, none), null, "depth only limits delegation");
    const twoChildren = { ...executor, children: { a: { toolUseId: "1", consumed: true }, b: { toolUseId: "2", consumed: false } } };
    assert.equal(toolStop(twoChildren, call("delegate"), caps, caps.main, none), null);
    assert.equal(toolStop(twoChildren, call("delegate"), caps, caps.main, { toolCalls: 1, delegations: 1 })?.limit, "delegation_fan_out");
  });

  it("a turn's calls: each allowed call counts once against the ones after it", () => {
    const three = ["search_corpus", "search_corpus", "search_corpus"].map(call);
    assert.deepEqual(turnToolStop({ ...executor, toolCalls: 22 }, three, caps, caps.child), { allowed: 3, stop: null });
    assert.deepEqual(turnToolStop({ ...executor, toolCalls: 23 }, three, caps, caps.child), {
      allowed: 2,
      stop: { limit: "executor_tool_calls", reason: "tool call limit reached (25 of 25 calls for this executor)" },
    });
    const delegations = ["delegate", "search_corpus", "delegate", "delegate", "delegate"].map(call);
    const fanned = turnToolStop(executor, delegations, caps, caps.main);
    assert.deepEqual([fanned.allowed, fanned.stop?.limit], [4, "delegation_fan_out"]);
  });

  it("names the narrowest cap a refused reservation would break", () => {
    const totals = { spentTokens: 500, reservedTokens: 400, maxTokens: 1000, spentCostMicros: 0, reservedCostMicros: 0, maxCostMicros: 100 };
    assert.equal(reservationStop(totals, 900, 1000, { tokens: 200, costMicros: 1 }).limit, "executor_tokens");
    assert.equal(reservationStop(totals, 0, 1000, { tokens: 200, costMicros: 1 }).limit, "run_tokens");
    assert.equal(reservationStop(totals, 0, 1000, { tokens: 50, costMicros: 101 }).limit, "run_cost");
  });
});

describe("fetchStop: the run's fetch budget", () => {
  const caps = { ...CONFIGURED_CAPS, fetch: { maxFetches: 3, maxBytes: 1_000 } };
  const calls = (...names: string[]) => names.map((name) => ({ name }));

  it("web_fetch calls count against the pages left, in the model's order; other tools pass", () => {
    assert.equal(fetchStop({ fetches: 1, bytes: 10 }, calls("web_fetch", "web_search", "web_fetch"), caps), null);
    const stop = fetchStop({ fetches: 1, bytes: 10 }, calls("web_fetch", "web_search", "web_fetch", "web_fetch"), caps);
    assert.deepEqual([stop?.at, stop?.stop.limit], [3, "run_fetches"]);
    assert.match(stop!.stop.reason, /run fetch budget of 3 pages used/);
  });

  it("once the bytes read reach the cap, the next web_fetch is stopped, naming the bytes", () => {
    const stop = fetchStop({ fetches: 1, bytes: 1_000 }, calls("web_search", "web_fetch"), caps);
    assert.deepEqual([stop?.at, stop?.stop.limit], [1, "run_fetch_bytes"]);
    assert.equal(fetchStop({ fetches: 1, bytes: 999 }, calls("web_fetch"), caps), null);
  });

  it("caps recorded before the fetch budget parse with its defaults", () => {
    const { fetch: _, ...older } = CONFIGURED_CAPS;
    assert.deepEqual(parseCaps(older).fetch, { maxFetches: 200, maxBytes: 200 * 1024 * 1024 });
  });
});

describe("searchAllowance: the run's search budget (server-side searches)", () => {
  const caps = { ...CONFIGURED_CAPS, search: { maxSearches: 10 } };

  it("a call may run its max_uses while they fit, then what is left, then none: a stop naming the budget", () => {
    assert.deepEqual(searchAllowance(0, 5, caps), { searches: 5, stop: null });
    assert.deepEqual(searchAllowance(8, 5, caps), { searches: 2, stop: null });
    const spent = searchAllowance(10, 5, caps);
    assert.equal(spent.stop?.limit, "run_searches");
    assert.equal(spent.stop?.reason, "run search budget of 10 web searches used (10 run)");
  });

  it("caps recorded before the search budget parse with its default", () => {
    const { search: _, ...older } = CONFIGURED_CAPS;
    assert.deepEqual(parseCaps(older).search, { maxSearches: 50 });
  });
});
