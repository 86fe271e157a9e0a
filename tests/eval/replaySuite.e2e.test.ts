import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { caseModel } from "../../eval/caseModel.ts";
import type { EvalCase } from "../../eval/evalCase.ts";
import { loadSuite } from "../../eval/loadSuite.ts";
import { runSuite, type SuiteOptions } from "../../eval/runSuite.ts";
import { createEventStore } from "../../events/index.ts";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import type { Model, ModelRequest, ToolSpec } from "../../models/types.ts";
import { type AnthropicWireServer, type WireBlock, type WireRequestBody, plainBody, reply, startAnthropicWireServer } from "../../models/testing/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

const SUITE = new URL("../../eval/suites/offline/", import.meta.url).pathname;
const CASES = ["etf-overlap", "raspberry-pi-3-price"];

/** The Messages API body back into the request the runtime built (models/toAnthropicParams.ts, inverted). */
const requestOf = (wire: WireRequestBody): ModelRequest => requestOfPlain(plainBody(wire));
const requestOfPlain = (body: WireRequestBody & { system: string }): ModelRequest => ({
  model: body.model,
  system: body.system,
  messages: body.messages as ModelRequest["messages"],
  tools: ((body.tools ?? []) as { name: string; description: string; input_schema: Record<string, unknown> }[]).map((t): ToolSpec => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
  maxTokens: body.max_tokens,
});

/**
 * The replay lane over whole delegating cases: recorded through the real
 * Anthropic SDK against the local wire server (which answers as each case's
 * scripted model would: the "real model" of this test), then replayed with no
 * model call at all, past every delegation and fetch whose run-specific
 * values (executor ids, fetch times) differ from the recording's.
 */
describe(`the replay lane replays the offline suite's delegating cases whole (${ENGINES[0]})`, () => {
  let db: TestDatabase;
  let server: AnthropicWireServer;
  let dir: string;
  let cases: EvalCase[];
  let answering: Model;
  const options = (extra: Partial<SuiteOptions>): SuiteOptions => ({
    database: db.database,
    store: createEventStore(db.database),
    lane: "replay",
    corpusDir: sharedCorpusDir(),
    workspaceRoot: dir,
    settings: { model: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: server.url } },
    realModel: () => new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries: 0, initialRetryDelayMs: 1, idleTimeoutMs: 5_000, timeoutMs: 10_000 }),
    ...extra,
  });
  const recordingsOf = async (id: string) => (await readFile(join(dir, "suite", id, "replay.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l));

  before(async () => {
    db = await openTestDatabase(ENGINES[0]!);
    dir = await mkdtemp(join(tmpdir(), "ariadne-eval-replay-"));
    for (const id of CASES) await cp(join(SUITE, id), join(dir, "suite", id), { recursive: true });
    cases = await loadSuite(join(dir, "suite"));
    server = await startAnthropicWireServer({
      handler: () => assert.fail("no case is being recorded"),
    });
  });
  after(async () => {
    await server?.close();
    await db?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  const recordThrough = (c: EvalCase) => {
    answering = caseModel(c);
    server.setHandler(async (body) => {
      const response = await answering.complete(requestOf(body));
      return reply(response.content as WireBlock[]);
    });
  };

  test("recorded against the wire server, each case replays whole: same answer, zero model calls", async () => {
    for (const c of cases) {
      recordThrough(c);
      const [recorded] = (await runSuite([c], options({ record: true }))).cases;
      assert.deepEqual(recorded!.failures, [], `${c.id} recorded`);
      const turns = (await createEventStore(db.database).readRun(recorded!.runId)).filter((e) => e.type === "turn").length;
      assert.equal((await recordingsOf(c.id)).length, turns, `${c.id}: one recording a turn`);
    }
    server.setHandler(undefined);
    const asked = server.requests.length;
    const replayed = (await runSuite(cases, options({}))).cases;
    assert.equal(server.requests.length, asked, "the replay asked the model nothing");
    assert.deepEqual(replayed.map((s) => [s.caseId, s.failures, s.coverage]), cases.map((c) => [c.id, [], 1]));
  });

  test("a changed prompt still misses, loudly, naming the nearest recording's first difference", async () => {
    const lookup = cases.find((c) => c.lookup)!;
    const changed = { ...lookup, question: lookup.question.replace("Raspberry Pi 3", "Raspberry Pi 4") };
    const [score] = (await runSuite([changed], options({}))).cases;
    assert.match(score!.failures[0]!, /^replay miss: no recorded response for request [0-9a-f]{64}; the nearest recorded request [0-9a-f]{64} differs at messages\[0\]\.content: recorded "What does the Raspberry Pi 3 cost/);
  });
});
