import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../../events/openStore.ts";
import { type CliResult, ROOT, ariadne, outputOf } from "./ariadneProcess.ts";
import { loadRecordedRun } from "../support/recordedRuns.ts";
import { scratchDir } from "../bundle/exportedRun.ts";

/**
 * Issue 28: a prompt template edited after a run was recorded changes nothing
 * of what that run's transcript, verify, bundle or resume shows. A test build
 * is made by copying the sources and editing actors/request/prompts.ts there
 * (the task, the nudges, the reminder, advice, handoff and child-ended
 * blocks); the run is recorded by this checkout, then read and resumed by the
 * edited copy. The copy's request version differs and every command says so.
 */
/** Everything of the checkout but its dependencies, history, tests and scratch folders. */
const SKIP = new Set(["node_modules", ".git", "tests", "docs", "bench", ".test-build", "dist", ".ariadne", ".scratch"]);
const KEY = join(ROOT, "tests/fixtures/recorded-before-28/seal.key");
const PUB = join(ROOT, "tests/fixtures/recorded-before-28/seal.pub");
const EDIT = "EDITED";

/** A copy of the sources with `edit` applied to actors/request/prompts.ts; node_modules and the shared corpus linked. */
function editedBuild(edit: (prompts: string) => string): string {
  const base = mkdtempSync(join(tmpdir(), "ariadne-prompt-edit-"));
  process.once("exit", () => rmSync(base, { recursive: true, force: true }));
  const repo = join(base, "repo");
  for (const entry of readdirSync(ROOT)) if (!SKIP.has(entry)) cpSync(join(ROOT, entry), join(repo, entry), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(repo, "node_modules"));
  symlinkSync(join(ROOT, "..", "shared"), join(base, "shared"));
  const prompts = join(repo, "actors/request/prompts.ts");
  const source = readFileSync(prompts, "utf8");
  const edited = edit(source);
  assert.notEqual(edited, source, "the edit changed the templates");
  writeFileSync(prompts, edited);
  return repo;
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

/** The CLI of a copied build, as a user runs it. */
function copyCli(repo: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const base = { ...process.env };
  for (const key of ["ARIADNE_DEBUG", "DATABASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]) delete base[key];
  return outputOf(spawn(process.execPath, [join(repo, "cli/bin.mjs"), ...args], { cwd: repo, env: { ...base, ...env }, timeout: 120_000 }));
}

const executorsOf = (events: { type: string; metadata: { executorId: string } }[]) => [...new Set(events.filter((e) => e.type === "executor_admitted").map((e) => e.metadata.executorId))];

describe("a prompt template edited after the run was recorded", () => {
  let edited: string;
  let dataDir: string;
  let run: { runId: string; mainExecutorId: string };
  let executors: string[];
  before(async () => {
    edited = editedBuild(editTexts);
    dataDir = join(scratchDir("prompt-edit"), "data");
    // Recorded by this checkout: reminders, an advisory review, background and foreground Children.
    const recorded = await ariadne(["run", "--json", "--scenario", "morning-briefing", "--reviewer", "advisory", "--data-dir", dataDir], { ARIADNE_SIGNING_KEY: KEY });
    assert.equal(recorded.code, 0, recorded.stderr);
    run = JSON.parse(recorded.stdout);
    const opened = await openStore({ dataDir });
    try {
      executors = executorsOf(await opened.store.readRun(run.runId));
    } finally {
      await opened.close();
    }
  });
  after(() => {});

  test("the edited build's request version differs, and its transcripts rebuild every request as sent, saying so", async () => {
    let turns = 0;
    for (const executorId of executors) {
      const text = await copyCli(edited, ["transcript", executorId, "--data-dir", dataDir]);
      assert.equal(text.code, 0, `${executorId}: ${text.stderr}`);
      assert.match(text.stdout, /^request code: recorded under request code [0-9a-f]{16}; this Ariadne's request code is [0-9a-f]{16}: what the model was shown is read from the log/m);
      const json = await copyCli(edited, ["transcript", executorId, "--json", "--data-dir", dataDir]);
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
    const verified = await copyCli(edited, ["verify", run.runId, "--key", PUB, "--data-dir", dataDir]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /request code: 7 of 7 executors were recorded under request code [0-9a-f]{16}; this Ariadne's request code is/);
    const dir = join(scratchDir("prompt-edit-bundle"), "bundle");
    const exported = await copyCli(edited, ["export", run.runId, dir, "--data-dir", dataDir], { ARIADNE_SIGNING_KEY: KEY });
    assert.equal(exported.code, 0, exported.stderr);
    const offline = await copyCli(edited, ["verify", dir, "--key", PUB]);
    assert.equal(offline.code, 0, offline.stdout + offline.stderr);
  });

  test("a run cut short resumes under the edited build with the history its models saw", async () => {
    const bundle = join(scratchDir("prompt-edit-cut"), "bundle");
    const exported = await ariadne(["export", run.runId, bundle, "--data-dir", dataDir], { ARIADNE_SIGNING_KEY: KEY });
    assert.equal(exported.code, 0, exported.stderr);
    // The log up to Main's second handoff consumed, as a crash there leaves it.
    const lines = readFileSync(join(bundle, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { type: string; globalPosition: number; metadata: { executorId: string } });
    const consumed = lines.filter((l) => l.type === "handoff_consumed" && l.metadata.executorId === run.mainExecutorId);
    const cut = consumed[1]!.globalPosition;
    const resumedDir = join(scratchDir("prompt-edit-resume"), "data");
    const opened = await openStore({ dataDir: resumedDir });
    try {
      await loadRecordedRun(opened.database, { name: "cut", runId: run.runId, mainExecutorId: run.mainExecutorId, dir: bundle }, (l) => l.globalPosition <= cut);
    } finally {
      await opened.close();
    }
    const resumed = await copyCli(edited, ["resume", run.runId, "--data-dir", resumedDir], { ARIADNE_SIGNING_KEY: KEY });
    assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
    assert.match(resumed.stdout + resumed.stderr, /request code: \d+ of \d+ executors were recorded under request code [0-9a-f]{16}.*new requests are built by this version/);
    const main = JSON.parse((await copyCli(edited, ["transcript", run.mainExecutorId, "--json", "--data-dir", resumedDir])).stdout) as {
      turns: { turn: number; digestMatches: boolean; request: { messages: { content: unknown }[] } }[];
    };
    assert.deepEqual(main.turns.filter((x) => !x.digestMatches).map((x) => x.turn), []);
    const last = main.turns.at(-1)!.request.messages;
    // The turns after the resume were sent the recorded task and handoffs, not the edited templates' renderings.
    assert.ok(!JSON.stringify(last.slice(0, 4)).includes(EDIT), "the history before the cut is as the model saw it");
    assert.ok(main.turns.length >= 3);
    const verified = await copyCli(edited, ["verify", run.runId, "--key", PUB, "--data-dir", resumedDir]);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
  });

  test("seeded: an edited system prompt (not recorded) is caught by the digest check, and the transcript says the request code changed", async () => {
    const systemEdited = editedBuild((s) => s.replace("You are Main, the research executor", `You are Main (${EDIT}), the research executor`));
    const out = await copyCli(systemEdited, ["transcript", run.mainExecutorId, "--data-dir", dataDir]);
    assert.equal(out.code, 1, out.stdout);
    assert.match(out.stderr, /does not match the digest recorded with it \(recorded under request code [0-9a-f]{16}; this Ariadne's request code is [0-9a-f]{16}/);
  });
});
