import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { RecordedEvent } from "../../events/index.ts";
import { claimProvenance, foldAll, runClaims } from "../../projections/index.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "./log.ts";

const MAIN = "main-pure";
const CHILD = "child-pure";
const TEXT_SHA = "b".repeat(64);
const RAW_SHA = "a".repeat(64);
const PROFILE = { id: "web-explorer", version: "2", sha256: "c".repeat(64) };
const usage = { inputTokens: 10, outputTokens: 5 };
const turnData = (turn: number, content: unknown[]) => ({
  turn,
  request: { model: "m", messageCount: turn, toolNames: [], digest: String(turn).repeat(64) },
  response: { content, stopReason: "tool_use" },
  usage,
  model: "claude-test",
  responseId: `msg_${turn}`,
  provider: "anthropic",
  scripted: false,
  latencyMs: 1,
});

/** Main delegates one Child, which fetches a page, is reminded, quotes the page and hands off; Main answers. */
function run() {
  const log = memoryLog();
  log.add(MAIN, "executor_admitted", admittedData("main"));
  log.add(CHILD, "executor_admitted", admittedData("child", { profile: PROFILE }));
  log.add(CHILD, "turn", turnData(1, [{ type: "tool_use", id: "toolu_f", name: "web_fetch", input: { url: "https://x.test/" } }]) as never);
  log.add(CHILD, "tool_called", { turn: 1, toolUseId: "toolu_f", tool: "web_fetch", input: { url: "https://x.test/" }, effect: "read_only" });
  const source = { kind: "web_page" as const, url: "https://x.test/", finalUrl: "https://x.test/", status: 200, contentType: "text/html", fetchedAt: "2026-12-01T00:00:00.000Z", rawSha256: RAW_SHA, textSha256: TEXT_SHA, bytes: 9 };
  log.add(CHILD, "tool_completed", { toolUseId: "toolu_f", tool: "web_fetch", output: "page", artifacts: [], sources: [source] });
  log.add(CHILD, "reminder_raised", { reminderId: "rem1", key: "k", text: "Two minutes left.", facts: {} });
  log.add(CHILD, "reminder_delivered", { reminderId: "rem1", turn: 2, rendered: "[Ariadne runtime reminder, not from the user] Two minutes left." });
  log.add(CHILD, "turn", turnData(2, [{ type: "tool_use", id: "toolu_h", name: "handoff", input: {} }]) as never);
  const quote = { toolUseId: "toolu_f", text: "0.29%", source: { sha256: TEXT_SHA, charStart: 3, charEnd: 8 } };
  const finding = { claim: "The charge is 0.29%.", evidence: { toolResults: ["toolu_f"], citations: [], quotes: [quote] }, confidence: "high" };
  log.add(CHILD, "handoff_committed", { handoff: { summary: "s", findings: [finding] }, repairs: 0, forced: false });
  log.add(CHILD, "settled", { outcome: "handed_off" });
  const claims = [
    { text: "The charge is 0.29%.", basis: "observed", citations: [{ executor: CHILD, finding: 0 }] },
    { text: "It suits long-term holders.", basis: "judgment", citations: [] },
    { text: "Spreads were not found.", basis: "not_collected", citations: [] },
    { text: "A finding that is not there.", basis: "observed", citations: [{ executor: CHILD, finding: 4 }] },
  ];
  log.add(MAIN, "settled", { outcome: "answered", answer: { summary: "s", sections: [{ heading: "Fees", claims }] } });
  return log.events;
}

describe("claim provenance", () => {
  test("an observed claim is followed to the Child, its profile, the turn that wrote the finding and its reminders, the quote, the call and the source", () => {
    const events = run();
    const result = runClaims("run-pure", foldAll(claimProvenance, events));
    assert.equal(result.answer?.executorId, MAIN);
    assert.deepEqual(result.claims.map((c) => c.id), ["c1", "c2", "c3", "c4"]);
    const [f] = result.claims[0]!.findings;
    assert.deepEqual(f!.problems, []);
    assert.deepEqual(f!.child.profile, PROFILE);
    assert.equal(f!.handoff?.forced, false);
    assert.equal(f!.turn?.turn, 2);
    assert.equal(f!.turn?.responseId, "msg_2");
    assert.deepEqual(f!.turn?.reminders, [{ reminderId: "rem1", text: "Two minutes left." }]);
    const q = f!.quotes[0]!;
    assert.deepEqual(q.blob, { sha256: TEXT_SHA, charStart: 3, charEnd: 8 });
    assert.equal(q.source?.kind === "source" && q.source.url, "https://x.test/");
    assert.equal(q.call?.intent?.eventId, events.find((e) => e.type === "tool_called")!.eventId);
    assert.equal(q.call?.outcome?.type, "tool_completed");
    assert.equal(result.claims[1]!.noEvidence?.startsWith("a judgment"), true);
    assert.equal(result.claims[2]!.noEvidence?.startsWith("not collected"), true);
    assert.deepEqual(result.claims[3]!.findings[0]!.problems, [`the handoff of ${CHILD} has no finding 4`]);
  });

  test("a run without an answer has no claims", () => {
    const events = run().filter((e) => !(e.type === "settled" && e.metadata.executorId === MAIN));
    assert.deepEqual(runClaims("run-pure", foldAll(claimProvenance, events)).claims, []);
  });

  test("property: any interleaving that keeps each stream's order gives the same chains", () => {
    const events = run();
    const expected = runClaims("run-pure", foldAll(claimProvenance, events));
    const streams = [...new Set(events.map((e) => e.streamId))];
    fc.assert(
      fc.property(fc.array(fc.nat(streams.length - 1), { minLength: events.length, maxLength: events.length }), (picks) => {
        const queues = new Map(streams.map((s) => [s, events.filter((e) => e.streamId === s)]));
        const order: RecordedEvent[] = [];
        for (const pick of picks) {
          const queue = queues.get(streams[pick]!)!.length ? queues.get(streams[pick]!)! : [...queues.values()].find((q) => q.length)!;
          order.push(queue.shift()!);
        }
        assert.deepEqual(runClaims("run-pure", foldAll(claimProvenance, order)), expected);
      }),
      { numRuns: 200 },
    );
  });
});
