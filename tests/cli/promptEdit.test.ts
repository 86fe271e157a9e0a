import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Plugin } from "esbuild";
import { bundle } from "../../build/bundle.ts";
import { openStore } from "../../events/openStore.ts";
import { type CliResult, type CliStore, ROOT, ariadne, cliStore, outputOf } from "./ariadneProcess.ts";
import { loadRecordedRun } from "../support/recordedRuns.ts";
import { scratchDir } from "../bundle/exportedRun.ts";

/**
 * Issue 28: a prompt template edited after a run was recorded changes nothing
 * of what that run's transcript, verify, bundle or resume shows. An edited
 * build is the CLI bundled with esbuild (as tests/build.ts bundles it) with
 * actors/request/prompts.ts edited on its way into the bundle (the task, the
 * nudges, the reminder, advice, handoff and child-ended blocks); the run is
 * recorded by this checkout, then read and resumed by the edited build. The
 * edited build's request version differs and every command says so.
 */
const KEY = join(ROOT, "tests/fixtures/recorded-before-28/seal.key");
const PUB = join(ROOT, "tests/fixtures/recorded-before-28/seal.pub");
const EDIT = "EDITED";
const PROMPTS = join(ROOT, "actors/request/prompts.ts");

/**
 * The CLI bundled into a temporary folder as the test build bundles it
 * (build/bundle.ts) with `edit` applied to actors/request/prompts.ts, every
 * other module as it is here (each at its own import.meta.url, so profiles and
 * migrations are found where they are); packages load from this checkout's
 * node_modules, linked beside the bundle. Bundling takes about a second, where
 * running a copied tree through tsx compiled some 200 modules at every command.
 */
async function editedBuild(edit: (source: string) => string, file = PROMPTS): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "ariadne-prompt-edit-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  const source = readFileSync(file, "utf8");
  const edited = edit(source);
  assert.notEqual(edited, source, "the edit changed the templates");
  const editPrompts: Plugin = {
    name: "edited-prompts",
    setup(b) {
      b.onLoad({ filter: /[\\/]actors[\\/]request[\\/]\w+\.ts$/ }, (args) => (args.path === file ? { contents: edited, loader: "ts" } : undefined));
    },
  };
  const { outputs } = await bundle(["cli/start.ts"], dir, { plugins: [editPrompts] });
  // Output paths are relative to the repository, where the bundle is made from.
  assert.ok(Object.keys(outputs).some((out) => readFileSync(join(ROOT, out), "utf8").includes(EDIT)), "the bundle carries the edited templates");
  return join(dir, "cli/start.mjs");
}

/** Every text template of what a model is shown, changed. */
const editTexts = (s: string) =>
  s
    .replace("(task.context ? `${task.question}\\n\\n${task.context}` : task.question)", `"${EDIT} " + (task.context ? \`\${task.question}\\n\\n\${task.context}\` : task.question)`)
    .replace("`Question: ${task.question}", `\`${EDIT} Question: \${task.question}`)
    .replaceAll("You ended your turn without calling", `${EDIT}: you ended your turn without calling`)
    .replace("[Ariadne runtime reminder, not from the user]", `[${EDIT} reminder]`)
    .replace("[Ariadne runtime: advice from an independent reviewer,", `[${EDIT} advice from a reviewer,`)
    .replace("without a handoff: ${ended.reason}", `without a handoff (${EDIT}): \${ended.reason}`)
    .replace("canonicalJson({ child_executor_id: childExecutorId,", `canonicalJson({ edited: "${EDIT}", child_executor_id: childExecutorId,`)
    .replace("`Handoff from background Child ${childExecutorId}:", `\`${EDIT} handoff from background Child \${childExecutorId}:`);

/** The CLI of an edited build, as a user runs it. */
function copyCli(cli: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const base = { ...process.env };
  for (const key of ["ARIADNE_DEBUG", "DATABASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]) delete base[key];
  return outputOf(spawn(process.execPath, [cli, ...args], { cwd: ROOT, env: { ...base, ...env }, timeout: 120_000 }));
}

const executorsOf = (events: { type: string; metadata: { executorId: string } }[]) => [...new Set(events.filter((e) => e.type === "executor_admitted").map((e) => e.metadata.executorId))];

describe("a prompt template edited after the run was recorded", () => {
  let edited: string;
  // On PostgreSQL where the suite has it (a command then starts in a quarter of the CPU of one that opens PGlite).
  let store: CliStore;
  let resumedStore: CliStore | undefined;
  let run: { runId: string; mainExecutorId: string };
  let executors: string[];
  /** A command of the edited build on the recorded run's store. */
  const editedCli = (args: string[], env: Record<string, string> = {}, on: CliStore = store) => copyCli(edited, [...args, ...on.args], { ...on.env, ...env });
  before(async () => {
    edited = await editedBuild(editTexts);
    store = await cliStore("prompt_edit");
    // Recorded by this checkout: reminders, an advisory review, background and foreground Children.
    const recorded = await ariadne(["run", "--json", "--scenario", "morning-briefing", "--reviewer", "advisory", ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: KEY });
    assert.equal(recorded.code, 0, recorded.stderr);
    run = JSON.parse(recorded.stdout);
    const opened = await openStore(store.open);
    try {
      executors = executorsOf(await opened.store.readRun(run.runId));
    } finally {
      await opened.close();
    }
  });
  after(async () => {
    await store?.dispose();
    await resumedStore?.dispose();
  });

  test("the edited build's request version differs, and its transcripts rebuild every request as sent, saying so", async () => {
    let turns = 0;
    for (const executorId of executors) {
      const text = await editedCli(["transcript", executorId]);
      assert.equal(text.code, 0, `${executorId}: ${text.stderr}`);
      assert.match(text.stdout, /^request code: recorded under request code [0-9a-f]{16}; this Ariadne's request code is [0-9a-f]{16}: what the model was shown and offered is read from the log/m);
      const json = await editedCli(["transcript", executorId, "--json"]);
      const t = JSON.parse(json.stdout) as { turns: { digestMatches: boolean; request: unknown }[]; requestVersion: { recorded: string; current: string } };
      assert.notEqual(t.requestVersion.recorded, t.requestVersion.current);
      assert.deepEqual(t.turns.filter((x) => !x.digestMatches), []);
      // What the model was shown, not what the edited templates would render today.
      assert.ok(!JSON.stringify(t.turns.map((x) => x.request)).includes(EDIT), `${executorId}: no edited text in the rebuilt requests`);
      turns += t.turns.length;
    }
    assert.ok(turns > 20, `${turns} requests rebuilt`);
  });

  test("verify passes and names the request code; an export by the edited build verifies offline", async () => {
    const verified = await editedCli(["verify", run.runId, "--key", PUB]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /request code: 7 of 7 executors were recorded under request code [0-9a-f]{16}; this Ariadne's request code is/);
    const dir = join(scratchDir("prompt-edit-bundle"), "bundle");
    const exported = await editedCli(["export", run.runId, dir], { ARIADNE_SIGNING_KEY: KEY });
    assert.equal(exported.code, 0, exported.stderr);
    const offline = await copyCli(edited, ["verify", dir, "--key", PUB]);
    assert.equal(offline.code, 0, offline.stdout + offline.stderr);
  });

  test("a run cut short resumes under the edited build with the history its models saw", async () => {
    const bundle = join(scratchDir("prompt-edit-cut"), "bundle");
    const exported = await ariadne(["export", run.runId, bundle, ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: KEY });
    assert.equal(exported.code, 0, exported.stderr);
    // The log up to Main's second handoff consumed, as a crash there leaves it.
    const lines = readFileSync(join(bundle, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; globalPosition: number; metadata: { executorId: string } });
    const consumed = lines.filter((l) => l.type === "handoff_consumed" && l.metadata.executorId === run.mainExecutorId);
    const cut = consumed[1]!.globalPosition;
    const resumed = (resumedStore = await cliStore("prompt_edit_resume"));
    const opened = await openStore(resumed.open);
    try {
      await loadRecordedRun(opened.database, { name: "cut", runId: run.runId, mainExecutorId: run.mainExecutorId, dir: bundle }, (l) => l.globalPosition <= cut);
    } finally {
      await opened.close();
    }
    const resumedRun = await editedCli(["resume", run.runId], { ARIADNE_SIGNING_KEY: KEY }, resumed);
    assert.equal(resumedRun.code, 0, resumedRun.stdout + resumedRun.stderr);
    assert.match(resumedRun.stdout + resumedRun.stderr, /request code: \d+ of \d+ executors were recorded under request code [0-9a-f]{16}.*new requests are built by this version/);
    const main = JSON.parse((await editedCli(["transcript", run.mainExecutorId, "--json"], {}, resumed)).stdout) as {
      turns: { turn: number; digestMatches: boolean; request: { messages: { content: unknown }[] } }[];
    };
    assert.deepEqual(main.turns.filter((x) => !x.digestMatches).map((x) => x.turn), []);
    const last = main.turns.at(-1)!.request.messages;
    // The turns after the resume were sent the recorded task and handoffs, not the edited templates' renderings.
    assert.ok(!JSON.stringify(last.slice(0, 4)).includes(EDIT), "the history before the cut is as the model saw it");
    assert.ok(main.turns.length >= 3);
    const verified = await editedCli(["verify", run.runId, "--key", PUB], {}, resumed);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  });

  test("an edited system prompt changes nothing: the one offered at admission is read from the log", async () => {
    const systemEdited = await editedBuild((s) => s.replace("You are Main, the research executor", `You are Main (${EDIT}), the research executor`));
    const json = await copyCli(systemEdited, ["transcript", run.mainExecutorId, "--json", ...store.args], store.env);
    assert.equal(json.code, 0, json.stderr);
    const t = JSON.parse(json.stdout) as { turns: { digestMatches: boolean; request: { system: string } }[]; offered: string | null };
    assert.match(t.offered ?? "", /^[0-9a-f]{64}$/);
    assert.deepEqual(t.turns.filter((x) => !x.digestMatches), []);
    assert.ok(t.turns.every((x) => x.request.system.startsWith("You are Main, the research executor")));
  });

  test("seeded: an edited narrowing of the terminal tool (request code, not recorded) is caught by the digest check, and the transcript says the request code changed", async () => {
    const narrowingEdited = await editedBuild(
      (s) => s.replace("return { ...answerToolSpec, input_schema:", `return { ...answerToolSpec, description: "${EDIT}", input_schema:`),
      join(ROOT, "actors/request/answer.ts"),
    );
    const out = await copyCli(narrowingEdited, ["transcript", run.mainExecutorId, ...store.args], store.env);
    assert.equal(out.code, 1, out.stdout);
    assert.match(out.stderr, /does not match the digest recorded with it \(recorded under request code [0-9a-f]{16}; this Ariadne's request code is [0-9a-f]{16}/);
  });
});
