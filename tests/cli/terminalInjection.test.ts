import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../cli/main.ts";
import { readConfig } from "../../cli/config.ts";
import { terminalText } from "../../core/sanitizeText.ts";
import { renderLiveView } from "../../cli/live/renderLiveView.ts";
import { createEventStore } from "../../events/index.ts";
import { type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";
import { type Harness, openHarness, postJson, waitForFinal } from "../http/harness.ts";
import { createLeasedRuns } from "../../http/runs/leasedRuns.ts";
import { runWorker, runtimeFactory } from "../../runs/index.ts";
import { type AnthropicWireServer, reply, startAnthropicWireServer } from "../../models/testing/index.ts";

/** Clear the screen, set the window title, rewrite the line, a C1 CSI, a right-to-left override. */
const HOSTILE = "Fees?\x1b[2J\x1b]0;pwned\x07 ok\rFAKE: run settled\u009b31m \u202Eevil\u202C done\x08\x7f";
/** What a terminal would act on instead of showing. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

test("terminalText shows every control as its \\u escape, keeps tabs and newlines, and a JSON line stays the same value", () => {
  assert.equal(terminalText("a\x1b[2Jb\rc\u009bd\u202Ee\tf\ng"), "a\\u001b[2Jb\\u000dc\\u009bd\\u202ee\tf\ng");
  const json = JSON.stringify({ q: HOSTILE });
  assert.doesNotMatch(terminalText(json), CONTROL);
  assert.deepEqual(JSON.parse(terminalText(json)), { q: HOSTILE });
  assert.equal(terminalText("\x1b[32mok\x1b[0m \x1b[8mhidden", /\x1b\[(?:0|32)m/), "\x1b[32mok\x1b[0m \\u001b[8mhidden", "only the kept codes pass");
});

let db: TestDatabase;
let h: Harness;
let wire: AnthropicWireServer;
const stopWorker = new AbortController();
let worker: Promise<unknown>;
let runId: string;
before(async () => {
  db = await openTestDatabase("postgres");
  // A question needs a model: the real SDK against the local wire server, whose answer is hostile too.
  wire = await startAnthropicWireServer({ handler: () => reply(`The answer.\x1b]8;;http://evil.example\x07link\x1b]8;;\x07\r${HOSTILE}`) });
  const model = { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: wire.url };
  const store = createEventStore(db.database);
  h = await openHarness(store, { auth: "none", workers: false, runs: createLeasedRuns({ store, env: model }) });
  worker = runWorker({ database: db.database, store, buildRuntime: runtimeFactory({ model }), ttlMs: 10_000, pollMs: 100, concurrency: 2, graceMs: 1_000, signal: stopWorker.signal });
  const res = await h.app.request("/v1/runs", postJson("none", { question: HOSTILE }));
  const created = (await res.json()) as { id: string };
  assert.equal(res.status, 201, JSON.stringify(created));
  runId = (await waitForFinal(h.app, "none", created.id)).id;
});
after(async () => {
  stopWorker.abort();
  await worker;
  await h?.close();
  await wire?.close();
  await db?.dispose();
});

const cli = async (argv: string[]) => {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line), readConfig({ DATABASE_URL: db.url }));
  return { code, printed: lines.join("\n") };
};

for (const command of ["status", "status --json", "show", "transcript", "audit"]) {
  test(`ariadne ${command}: a question submitted over the API, and an answer, with escape sequences are shown, never acted on`, async () => {
    const [verb, ...flags] = command.split(" ");
    let target = runId;
    if (verb === "transcript") target = /main ([0-9a-f-]{36})/.exec((await cli(["status", runId])).printed)![1]!;
    const argv = [verb!, target, ...flags];
    const { code, printed } = await cli(argv);
    assert.ok(code === 0 || code === 3, `exit ${code}: ${printed.slice(0, 300)}`);
    assert.doesNotMatch(printed, CONTROL, "no control character reaches the terminal");
    if (verb === "status" || verb === "transcript") assert.match(printed, /\\u001b\[2J/, "the sequence is shown, escaped, where the question is");
  });
}

test("ariadne run --json: the lines it writes to stderr (the question, each step, a failure's reason) are escaped too", async () => {
  const errors: string[] = [];
  const write = console.error;
  console.error = (...parts: unknown[]) => void errors.push(parts.map(String).join(" "));
  let code: number;
  try {
    code = await main(["run", "--json", HOSTILE], () => {}, readConfig({ DATABASE_URL: db.url, ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: wire.url }), null);
  } finally {
    console.error = write;
  }
  assert.ok(code === 0 || code === 3, `exit ${code}: ${errors.join("\n").slice(0, 300)}`);
  const stderr = errors.join("\n");
  assert.match(stderr, /question: Fees\?\\u001b\[2J/, "the question is shown, escaped");
  assert.doesNotMatch(stderr, CONTROL, "no control character reaches the terminal through stderr");
});

test("the live view: names and reasons from the log reach the terminal escaped; its own colours pass", () => {
  const lines = renderLiveView({
    state: {
      run: { lifecycle: { runId: `r\x1b]0;x\x07`, events: 3 }, budget: { run: { spent: { tokens: 0, costMicros: 0 }, reserved: { tokens: 0 }, caps: { tokens: null, costMicros: null } }, executors: {} }, progress: { executors: {} } },
      startedAt: null,
      lastAt: null,
      tools: {},
    } as never,
    now: 0,
    tick: 0,
    width: 200,
    height: 20,
    color: true,
  });
  const joined = lines.join("\n");
  assert.match(joined, /r\\u001b\]0;x\\u0007/);
  assert.doesNotMatch(joined.replace(/\x1b\[(?:0|1|2|31|32|33|36)m/g, ""), CONTROL);
});
