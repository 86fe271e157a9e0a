import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openStore } from "../../events/openStore.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { type CliResult, type CliStore, ariadne, cliStore } from "./ariadneProcess.ts";

/** The offline demo run with a Reviewer mode, and its log read back. */
async function demoWithReviewer(mode: "advisory" | "shadow") {
  const store = await cliStore(`review_${mode}`);
  const run = await ariadne(["run", "--json", "--reviewer", mode, ...store.args], store.env);
  const opened = await openStore(store.open);
  try {
    const events = run.code === 0 ? await opened.store.readRun(JSON.parse(run.stdout).runId) : [];
    return { store, run, events };
  } finally {
    await opened.close();
  }
}

const mainOf = (events: RecordedEvent[]) => events.find((e) => e.type === "executor_admitted" && e.data.role === "main")!.metadata.executorId;

describe("the offline demo with a Reviewer", { concurrency: 2 }, () => {
  let advisory: { store: CliStore; run: CliResult; events: RecordedEvent[] };
  let shadow: { store: CliStore; run: CliResult; events: RecordedEvent[] };
  before(async () => {
    [advisory, shadow] = await Promise.all([demoWithReviewer("advisory"), demoWithReviewer("shadow")]);
  });
  after(() => Promise.all([advisory?.store.dispose(), shadow?.store.dispose()]));

  test("advisory: the review requested before Main's answer is delivered to Main before it settles; the Reviewer finishes, never cancelled", () => {
    assert.equal(advisory.run.code, 0, advisory.run.stderr);
    const main = mainOf(advisory.events);
    const ofMain = advisory.events.filter((e) => e.metadata.executorId === main);
    const requested = ofMain.filter((e) => e.type === "review_requested");
    assert.equal(requested.length, 1, "one review was requested");
    const delivered = ofMain.findIndex((e) => e.type === "review_delivered" && e.data.delivered === true);
    const settled = ofMain.findIndex((e) => e.type === "settled");
    assert.ok(delivered >= 0, `advice reached Main: ${ofMain.map((e) => e.type).join(", ")}`);
    assert.ok(delivered < settled, "before Main settled");
    const answeringTurn = ofMain.filter((e) => e.type === "turn").at(-1)!;
    assert.ok(ofMain.indexOf(answeringTurn) > delivered, "the answering turn's request carried the advice");
    const reviewer = (requested[0] as RecordedEvent<"review_requested">).data.reviewerExecutorId;
    const ofReviewer = advisory.events.filter((e) => e.metadata.executorId === reviewer).map((e) => e.type);
    assert.ok(!ofReviewer.includes("cancelled"), `the Reviewer was not cancelled: ${ofReviewer.join(", ")}`);
    assert.equal(ofReviewer.at(-1), "settled");
  });

  test("shadow: a review never reaches Main", () => {
    assert.equal(shadow.run.code, 0, shadow.run.stderr);
    const main = mainOf(shadow.events);
    const ofMain = shadow.events.filter((e) => e.metadata.executorId === main);
    assert.equal(ofMain.filter((e) => e.type === "review_requested").length, 1);
    assert.ok(!ofMain.some((e) => e.type === "review_delivered" && e.data.delivered), "no advice delivered to Main");
  });
});
