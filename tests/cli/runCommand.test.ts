import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type CliResult, type CliStore, ariadne, cliStore, closedPort, lines } from "./ariadneProcess.ts";

const RUN_LINE = /^run ([0-9a-f-]{36})$/;

describe("ariadne run: the question, the run id, token labels", { concurrency: 2 }, () => {
  test("an empty or blank question is refused with one line and exit 2, before any store is opened", async () => {
    // The database is unreachable: reaching for it would fail with exit 1 instead.
    const env = { ANTHROPIC_API_KEY: "sk-test", DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/x` };
    for (const question of ["", "   ", "\t\n"]) {
      const { code, stdout, stderr } = await ariadne(["run", question], env);
      assert.equal(code, 2, `${JSON.stringify(question)}: ${stderr}`);
      assert.equal(stdout, "");
      assert.equal(lines(stderr).length, 1, stderr);
      assert.match(stderr, /^ariadne: the question is blank/);
    }
  });

  test("a question with no model configured is refused with one line naming what to set, exit 2, before any store is opened", async () => {
    const env = { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/x` };
    for (const args of [["run", "What is the capital of France?"], ["run", "--json", "What is the capital of France?"]]) {
      const { code, stdout, stderr } = await ariadne(args, env);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, "");
      assert.equal(lines(stderr).length, 1, stderr);
      assert.match(stderr, /^ariadne: no model is configured, so the question cannot be asked: set ANTHROPIC_API_KEY/);
    }
  });

  test("--scenario: an unknown name, or a scenario with a question, is bad usage (exit 2, one line)", async () => {
    const env = { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/x` };
    const unknown = await ariadne(["run", "--scenario", "moon-landing"], env);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.equal(lines(unknown.stderr).length, 1, unknown.stderr);
    assert.match(unknown.stderr, /^ariadne: unknown scenario "moon-landing"; known scenarios: etf-overlap/);
    const both = await ariadne(["run", "--scenario", "etf-overlap", "What is the capital of France?"], { ...env, ANTHROPIC_API_KEY: "sk-test" });
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /^ariadne: scenario etf-overlap asks its own question; pass a question or a scenario, not both/);
  });

  test("--scenario etf-overlap runs the offline demo without a key", async () => {
    const store = await cliStore("scenario");
    try {
      const run = await ariadne(["run", "--json", "--scenario", "etf-overlap", ...store.args], store.env);
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.scripted, true);
      assert.equal(result.outcome, "answer");
    } finally {
      await store.dispose();
    }
  });

  describe("with a key set and no question", () => {
    let store: CliStore;
    let text: CliResult;
    let json: CliResult;
    before(async () => {
      store = await cliStore("run");
      // A real model call would go to a closed port and fail: the demo must not make one.
      const env = { ...store.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: `http://127.0.0.1:${await closedPort()}` };
      text = await ariadne(["run", ...store.args], env);
      json = await ariadne(["run", "--json", ...store.args], env);
    });
    after(() => store?.dispose());

    test("the offline demo runs and says so, and why, in one line on stderr", () => {
      assert.equal(text.code, 0, text.stderr);
      assert.equal(lines(text.stderr).length, 1, text.stderr);
      assert.match(text.stderr, /no question was given, so the offline scripted demo runs/);
      assert.match(text.stdout, /\[observed\] The fee announcement states/);
    });

    test("the run id is the first line of progress, in text mode and with --json", () => {
      const [first] = lines(text.stdout);
      assert.match(first, RUN_LINE);
      const id = RUN_LINE.exec(first)![1];
      assert.ok(
        lines(text.stdout).some((l) => new RegExp(`^run ${id} · \\d+ events · ariadne show ${id}`).test(l)),
        "the answer ends with the run line",
      );
      assert.match(lines(text.stdout).at(-1)!, new RegExp(`^root hash [0-9a-f]{64} · check later with: ariadne verify ${id} --root `));

      assert.equal(json.code, 0, json.stderr);
      const result = JSON.parse(json.stdout);
      assert.equal(lines(json.stderr)[0], `run ${result.runId}`);
    });

    test("token counts of the scripted model are labelled estimates wherever they are printed", () => {
      const counted = [...lines(text.stdout), ...lines(json.stderr)].filter((l) => /tokens/.test(l));
      assert.ok(counted.length >= 10, "every turn prints its tokens");
      for (const line of counted) assert.match(line, /~\d+\+\d+ tokens, estimated/, line);
    });

    test("ariadne show RUN prints the executor tree, every handoff whole, and the answer", async () => {
      const runId = JSON.parse(json.stdout).runId as string;
      const shown = await ariadne(["show", runId, ...store.args], store.env);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, new RegExp(`^run ${runId}: answered`));
      const view = JSON.parse((await ariadne(["show", runId, "--json", ...store.args], store.env)).stdout);
      assert.equal(view.runId, runId);
      // Main, its three Children and the run's Checker.
      assert.equal(view.executors.length, 5);
      assert.deepEqual(view.executors.map((x: { role: string }) => x.role).sort(), ["checker", "child", "child", "child", "main"]);
      for (const x of view.executors) {
        assert.equal(x.usage.estimated, true);
        // Each executor is on a line of the tree, children indented under Main, with its state.
        assert.match(shown.stdout, new RegExp(`^ +${x.role === "main" ? "main" : `${x.role}:${x.profile}`} ${x.executorId}: ${x.status} · ${x.turns} turns · ~\\d+\\+\\d+ tokens, estimated`, "m"));
      }
      assert.equal(view.handoffs.length, 3);
      for (const h of view.handoffs) {
        for (const key of ["summary", "findings", "measurementBasis", "artifacts", "gaps", "executionState", "confidence", "caveats"]) assert.ok(key in h, key);
        assert.ok(shown.stdout.includes(`handoff of child:${h.profile} (${h.executorId}): ${h.executionState}, confidence ${h.confidence}`));
        assert.ok(shown.stdout.includes(`    scope: ${h.measurementBasis.scope}`));
        for (const gap of h.gaps) assert.ok(shown.stdout.includes(`    - ${gap}`), gap);
      }
      assert.deepEqual(view.answer, JSON.parse(json.stdout).answer);
      assert.ok(shown.stdout.includes(view.answer.summary));
      // No effect of unknown outcome: an empty list, and no block printed.
      assert.deepEqual([view.unknownEffects, JSON.parse(json.stdout).unknownEffects], [[], []]);
      assert.doesNotMatch(shown.stdout + text.stdout, /UNKNOWN EFFECTS/);

      const missing = await ariadne(["show", "no-such-run", ...store.args], store.env);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^ariadne: no run no-such-run in the log/);
    });

    test("ariadne transcript EXECUTOR_ID prints every rebuilt request and response, each digest verified", async () => {
      const view = JSON.parse((await ariadne(["show", JSON.parse(json.stdout).runId, "--json", ...store.args], store.env)).stdout);
      const child = view.executors.find((x: { profile: string }) => x.profile === "document-reader");
      const shown = await ariadne(["transcript", child.executorId, ...store.args], store.env);
      assert.equal(shown.code, 0, shown.stderr);
      const turns = lines(shown.stdout).filter((l) => l.startsWith("turn "));
      assert.equal(turns.length, child.turns);
      for (const t of turns) assert.match(t, /~\d+\+\d+ tokens, estimated · request digest verified$/);
      assert.match(shown.stdout, /  > tool result for \S+: https:\/\/etf-files\.corpus\.test\/adiv-prospectus\.pdf is a PDF/);
      assert.match(shown.stdout, /  < tool_use \S+ handoff /);
      assert.match(shown.stdout, /^outcome: handoff$/m);

      const asJson = await ariadne(["transcript", child.executorId, "--json", ...store.args], store.env);
      const transcript = JSON.parse(asJson.stdout);
      assert.equal(transcript.executorId, child.executorId);
      assert.equal(transcript.turns.length, child.turns);
      for (const t of transcript.turns) {
        assert.equal(t.digestMatches, true);
        assert.equal(t.usage.estimated, true);
        assert.ok(t.request.messages.length > 0 && t.response.content.length > 0);
      }

      const missing = await ariadne(["transcript", "no-such-executor", ...store.args], store.env);
      assert.equal(missing.code, 1);
      assert.equal(lines(missing.stderr).length, 1);
      assert.match(missing.stderr, /no executor no-such-executor in the log/);
    });
  });

  test("show and transcript each have their own --help, and want exactly one id", async () => {
    for (const [command, what] of [["show", "RUN"], ["transcript", "EXECUTOR_ID"]]) {
      const help = await ariadne([command, "--help"]);
      assert.equal(help.code, 0);
      assert.match(help.stdout, new RegExp(`^usage: ariadne ${command} ${what} \\[--json\\]`));
      const bare = await ariadne([command]);
      assert.equal(bare.code, 2);
      assert.match(bare.stderr, new RegExp(`^ariadne: ${command} takes exactly one id`));
    }
  });
});
