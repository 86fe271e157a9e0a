import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSuite } from "../../eval/loadSuite.ts";
import { runSuite, type SuiteOptions } from "../../eval/runSuite.ts";
import { createEventStore } from "../../events/index.ts";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import { type AnthropicWireServer, type WireRequestBody, reply, startAnthropicWireServer, systemTextOf } from "../../models/testing/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

const isJudge = (body: WireRequestBody) => systemTextOf(body).startsWith("You judge");
const questionOf = (body: WireRequestBody) => String((body.messages[0] as { content: unknown }).content);
const verdict = (pass: boolean) =>
  reply([{ type: "tool_use", name: "verdict", input: { scores: { factual_accuracy: pass ? 5 : 2, citation_accuracy: 5, completeness: 4, source_quality: 4, tool_efficiency: 5 }, pass, rationale: pass ? "fine" : "wrong capital" } }]);

/** Main on the wire answers at once from what it knows: one judgment claim naming the capital the question asks for. */
const mainAnswers = (body: WireRequestBody) => {
  const country = /capital of (\w+)/.exec(questionOf(body))?.[1] ?? "nowhere";
  const capital = { France: "Paris", Italy: "Rome" }[country] ?? "unknown";
  return reply([{ type: "tool_use", name: "answer", input: { summary: `The capital of ${country} is ${capital}.`, sections: [{ heading: "Capital", claims: [{ text: `${capital} is the capital of ${country}.`, basis: "judgment", citations: [] }] }] } }]);
};

describe(`the replay and live lanes through the real Anthropic SDK on the local wire server (${ENGINES[0]})`, () => {
  let db: TestDatabase;
  let server: AnthropicWireServer;
  let dir: string;
  let judgeVerdicts: boolean[];
  const model = () => new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries: 0, initialRetryDelayMs: 1, idleTimeoutMs: 5_000, timeoutMs: 10_000 });
  const options = (extra: Partial<SuiteOptions>): SuiteOptions => ({
    database: db.database,
    store: createEventStore(db.database),
    lane: "scripted",
    corpusDir: sharedCorpusDir(),
    workspaceRoot: dir,
    settings: { model: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url } },
    realModel: model,
    ...extra,
  });
  const writeCase = async (name: string, country: string) => {
    await mkdir(join(dir, "suite", name), { recursive: true });
    // The wire's Main answers from what it knows, in a judgment claim, which covers nothing (coverage counts supported
    // claims only): the case asks for no coverage, and these tests are of the lanes, which the judge grades.
    const file = { question: `What is the capital of ${country}? Read https://pages.corpus.test/wikipedia/.`, lookup: { url: "https://pages.corpus.test/wikipedia/", phrases: ["Mozilla"] }, expected: [country === "France" ? "Paris" : "Rome"], minCoverage: 0 };
    await writeFile(join(dir, "suite", name, "case.json"), JSON.stringify(file));
  };

  before(async () => {
    db = await openTestDatabase(ENGINES[0]!);
    dir = await mkdtemp(join(tmpdir(), "ariadne-eval-lanes-"));
    server = await startAnthropicWireServer({ handler: (body) => (isJudge(body) ? verdict(judgeVerdicts.shift() ?? true) : mainAnswers(body)) });
    await writeCase("capital", "France");
  });
  after(async () => {
    await server?.close();
    await db?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test("replay --record keeps the real model's responses by replay key, with the turn's request digest; a replay then answers from them alone", async () => {
    const cases = await loadSuite(join(dir, "suite"));
    const recorded = await runSuite(cases, options({ lane: "replay", record: true }));
    assert.deepEqual(recorded.cases.map((c) => [c.caseId, c.failures]), [["capital", []]]);
    const lines = (await readFile(join(dir, "suite", "capital", "replay.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 1);
    const events = await createEventStore(db.database).readRun(recorded.cases[0]!.runId);
    const turn = events.find((e) => e.type === "turn")!;
    assert.equal(lines[0].digest, (turn.data as { request: { digest: string } }).request.digest, "beside the digest the turn event records");
    assert.match(lines[0].key, /^[0-9a-f]{64}$/);

    const before = server.requests.length;
    const replayed = await runSuite(cases, options({ lane: "replay" }));
    assert.equal(server.requests.length, before, "the replay asked the model nothing");
    assert.deepEqual(replayed.cases.map((c) => [c.failures, c.coverage, c.missing]), [[[], 0, ["Paris"]]]);

    // --record again refreshes: the model is asked anew and the file holds what this run asked.
    await runSuite(cases, options({ lane: "replay", record: true }));
    assert.equal(server.requests.length, before + 1);
    assert.equal((await readFile(join(dir, "suite", "capital", "replay.jsonl"), "utf8")).trim().split("\n").length, 1);
  });

  test("a request no recording answers fails the case, naming the nearest recorded request and where it differs", async () => {
    const cases = await loadSuite(join(dir, "suite"));
    const changed = [{ ...cases[0]!, question: cases[0]!.question.replace("France", "Italy") }];
    const [score] = (await runSuite(changed, options({ lane: "replay" }))).cases;
    const recording = JSON.parse((await readFile(join(dir, "suite", "capital", "replay.jsonl"), "utf8")).trim());
    assert.match(score!.failures[0]!, new RegExp(`^replay miss: no recorded response for request [0-9a-f]{64}; the nearest recorded request ${recording.key} differs at messages\\[0\\]\\.content: recorded "What is the capital of France\\?`));
  });

  test("live: k trials a case, each judged; a failed verdict is judged twice more and the majority kept; pass^k", async () => {
    const cases = await loadSuite(join(dir, "suite"));
    // Trial 1: fail, then pass, pass: kept as a pass. Trial 2: pass at once.
    judgeVerdicts = [false, true, true, true];
    const judgeCalls = () => server.requests.filter((r) => r.body && isJudge(r.body)).length;
    const before = judgeCalls();
    const run = await runSuite(cases, options({ lane: "live", trials: 2, judge: { model: model(), name: "claude-judge-test" } }));
    assert.equal(judgeCalls() - before, 4);
    const [live] = run.live!;
    assert.deepEqual([live!.k, live!.passes, live!.passK, live!.trials.map((t) => t.verdicts.map((v) => v.pass))], [2, 2, true, [[false, true, true], [true]]]);
    assert.deepEqual(run.cases[0]!.failures, []);

    // fail, fail, pass: the majority fails the trial, so the case fails pass^2.
    judgeVerdicts = [false, false, true, true];
    const failing = await runSuite(cases, options({ lane: "live", trials: 2, judge: { model: model(), name: "claude-judge-test" } }));
    assert.deepEqual([failing.live![0]!.passes, failing.live![0]!.passK], [1, false]);
    assert.match(failing.cases[0]!.failures[0]!, /^pass\^2: 1 of 2 trials passed/);
  });
});
