import { test } from "node:test";
import assert from "node:assert/strict";
import type { RecordedEvent } from "../../events/index.ts";
import { foldAll, foldRun, runState, runView } from "../../projections/index.ts";
import { runView as cliView } from "../../cli/runView.ts";
import { admittedData } from "../actors/fixtures.ts";
import { memoryLog } from "./log.ts";

// Issue 17, defect 6: a run whose Children were all stopped at once ended with an answer of 0 findings, shown and exited as answered.
const MAIN = "main-1";

function answeredWith(sections: unknown[]): RecordedEvent[] {
  const log = memoryLog();
  log.add(MAIN, "executor_admitted", admittedData("main", { parentExecutorId: null, grantedTools: ["delegate"] }));
  const admitted = log.events[0]!;
  const settled = { ...admitted, type: "settled", data: { outcome: "answered", answer: { summary: "s", sections } }, streamVersion: 2, globalPosition: 99, eventId: "x" };
  return [...log.events, settled as RecordedEvent];
}

const notCollected = [{ heading: "Fees", claims: [{ text: "Fees were not collected.", basis: "not_collected", citations: [] }] }];
const judgmentOnly = [{ heading: "Fit", claims: [{ text: "It depends on your goals.", basis: "judgment", citations: [] }] }];
const observed = [{ heading: "Fees", claims: [{ text: "0.5%", basis: "observed", citations: [{ executor: "child-1", finding: 0 }] }] }];

test("an answer citing no finding is partial: every section not collected, or judgment alone", () => {
  for (const sections of [notCollected, judgmentOnly, []]) {
    const events = answeredWith(sections);
    assert.equal(foldAll(runState, events).main?.partial, true, JSON.stringify(sections));
    const view = runView(foldRun(events));
    assert.equal(view.status, "settled");
    assert.equal(view.partial, true);
  }
});

test("an answer with an observed claim citing a finding is not partial", () => {
  const view = runView(foldRun(answeredWith([...notCollected, ...observed])));
  assert.equal(view.partial, false);
});

test("`show` calls Main with an answer of no findings a partial answer", () => {
  const main = cliView(runView(foldRun(answeredWith(notCollected)))).executors.find((x) => x.executorId === MAIN);
  assert.equal(main?.status, "partial_answer");
});
