import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { ariadne, lines } from "./ariadneProcess.ts";
import { ariadneInPty, lastFrame, plain } from "./ptyProcess.ts";
import { start } from "../runs/processes.ts";

const CURSOR_UP = /\r\x1b\[\d+A\x1b\[J/;
const redraws = (output: string) => output.split(CURSOR_UP).length - 1;
const COLOR = /\x1b\[\d+m/;

/**
 * The live run view on a real pseudo-terminal (util-linux `script`), on
 * PostgreSQL: `status --follow` watches a run a worker in another process hosts,
 * which PGlite (one process by design) cannot share.
 */
describe("the live run view on a terminal", { concurrency: 1 }, () => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  let settledRun: string;
  before(async () => {
    scratch = await createScratchDatabase(`ariadne_live_${process.pid}`, ADMIN_URL);
    env = { DATABASE_URL: scratch.url, ARIADNE_SCRIPTED_LATENCY_MS: "60" };
    const migrated = await ariadne(["migrate"], env);
    assert.equal(migrated.code, 0, migrated.stderr);
  });
  after(() => scratch?.drop());

  test("ariadne run draws the executor tree in place, ends with the answer, gives the cursor back and exits 0", async () => {
    const run = ariadneInPty(["run"], env);
    const code = await run.exited;
    const output = run.output();
    assert.equal(code, 0, output.slice(-3000));
    settledRun = /^run (\S+)\r?$/m.exec(output)![1]!;
    // Redrawn in place: many frames, each moving the cursor back up over the last.
    assert.ok(redraws(output) >= 5, "frames redrawn with cursor-up");
    assert.match(output, COLOR);
    const frame = plain(lastFrame(output));
    assert.match(frame, new RegExp(`^✔ run ${settledRun} · settled · \\d+s · \\d+ events\\n`));
    assert.match(frame, /^budget \[█*░*\] \d+% · [\d.]+k of 600k tokens/m);
    assert.match(frame, /^main {2}answered · turn 2\/\d+ · ~[\d.]+k\+[\d.]+k? tok · \d+ tool calls?$/m);
    // Children are named in the order their admissions were recorded, which concurrent delegations do not fix.
    assert.match(frame, /^├─ child:\S+#1 {2}handed off · turn 3\/\d+ · ~[\d.]+k\+\d+ tok · \d tool calls?$/m);
    assert.match(frame, /^├─ child:\S+#2 {2}handed off/m);
    assert.match(frame, /^├─ child:\S+#3 {2}handed off/m);
    // The Checker, started on Main's answer before the seal.
    assert.match(frame, /^└─ checker:checker#4 {2}checked · turn \d\/\d+/m);
    // Every line of every frame fits the 100 columns (one kept free).
    const frames = output.split(CURSOR_UP).slice(1);
    frames[frames.length - 1] = frames.at(-1)!.slice(0, frames.at(-1)!.indexOf("\x1b[?25h"));
    for (const line of frames.flatMap((f) => plain(f).split("\n"))) assert.ok([...line].length <= 99, line);
    // Then the answer, after the frame, and the cursor shown again after it was last hidden.
    assert.match(frame, /\[observed\] The fee announcement states/);
    assert.ok(output.lastIndexOf("\x1b[?25h") > output.lastIndexOf("\x1b[?25l"));
    assert.match(output, new RegExp(`run ${settledRun} · \\d+ events · ariadne show`));
  });

  test("NO_COLOR: the same view without colour (status --follow of the settled run: drawn once, then its answer)", async () => {
    const follow = ariadneInPty(["status", settledRun, "--follow"], { ...env, NO_COLOR: "1" });
    assert.equal(await follow.exited, 0, follow.output().slice(-3000));
    assert.doesNotMatch(follow.output(), COLOR);
    assert.match(follow.output(), CURSOR_UP);
    assert.match(lastFrame(follow.output()), new RegExp(`^✔ run ${settledRun} · settled`));
    assert.match(lastFrame(follow.output()), /\[observed\] The fee announcement states/);
  });

  test("Ctrl-C: the run is interrupted, the lines saying how to go on stay above a whole last frame, the cursor is back, exit 130", async () => {
    const run = ariadneInPty(["run"], { ...env, ARIADNE_SCRIPTED_LATENCY_MS: "400" });
    await run.waitFor(/child:\S+#3/);
    run.type("\x03");
    assert.equal(await run.exited, 130, run.output().slice(-3000));
    const output = run.output();
    const runId = /^run (\S+)\r?$/m.exec(output)![1]!;
    const frame = plain(lastFrame(output));
    assert.match(frame, new RegExp(`^✖ run ${runId} · interrupted · \\d+s · \\d+ events\\n`));
    assert.match(frame, /^└─ child:\S+#3 /m);
    // The terminal echoes ^C where the cursor was, below the frame; the erase that follows takes it away.
    assert.match(plain(output), new RegExp(`\\x1b\\[J(\\^C)?interrupting run ${runId}: no new steps`));
    assert.match(plain(output), new RegExp(`\\x1b\\[J {2}resume it: {2}ariadne resume ${runId}\\n`));
    assert.ok(output.lastIndexOf("\x1b[?25h") > output.lastIndexOf("\x1b[?25l"));
  });

  test("status RUN --follow on a terminal: a queued run waits visibly, a worker in another process hosts it, the tree is drawn until it settles", async () => {
    const submitted = await ariadne(["submit"], env);
    assert.equal(submitted.code, 0, submitted.stderr);
    const runId = submitted.stdout.trim().split("\n").at(-1)!;
    const follow = ariadneInPty(["status", runId, "--follow"], env);
    await follow.waitFor(/queued: waiting for a worker · \d+s/);
    const worker = start(["worker", "--idle-exit-ms", "1500"], env);
    try {
      assert.equal(await follow.exited, 0, follow.output().slice(-3000));
    } finally {
      await worker.exited;
    }
    const output = follow.output();
    // In flight, after whichever spinner glyph that frame drew (the spinner turns with time, not with frames).
    assert.match(plain(output), /├─ child:\S+#1 {2}(?:[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] )?(model call|web_\w+|document_read|compute)/);
    assert.ok(redraws(output) >= 5, "frames redrawn with cursor-up");
    const frame = plain(lastFrame(output));
    assert.match(frame, new RegExp(`^✔ run ${runId} · settled`));
    assert.match(frame, /^main {2}answered/m);
    assert.match(frame, /\[observed\] The fee announcement states/);
    assert.ok(output.lastIndexOf("\x1b[?25h") > output.lastIndexOf("\x1b[?25l"));
  });

  test("status RUN --follow: Ctrl-C stops following, not the run (exit 130, the cursor back)", async () => {
    const submitted = await ariadne(["submit"], env);
    const runId = submitted.stdout.trim().split("\n").at(-1)!;
    try {
      const follow = ariadneInPty(["status", runId, "--follow"], env);
      await follow.waitFor(/queued: waiting for a worker/);
      follow.type("\x03");
      assert.equal(await follow.exited, 130, follow.output().slice(-3000));
      assert.match(follow.output(), new RegExp(`stopped following run ${runId}; the run goes on`));
      assert.ok(follow.output().lastIndexOf("\x1b[?25h") > follow.output().lastIndexOf("\x1b[?25l"));
      const status = await ariadne(["status", runId, "--json"], env);
      assert.equal(JSON.parse(status.stdout).state, "submitted");
    } finally {
      await ariadne(["cancel", runId], env);
    }
  });

  test("status RUN --follow off a terminal: a line per step as ariadne run prints them, then the status; --json the status alone", async () => {
    const text = await ariadne(["status", settledRun, "--follow"], env);
    assert.equal(text.code, 0, text.stderr);
    assert.doesNotMatch(text.stdout, /\x1b/);
    assert.match(text.stdout, /^\[\d+\.\d+s\] +main +admitted; tools: /m);
    assert.match(text.stdout, /^\[\d+\.\d+s\] +main +answered$/m);
    assert.match(text.stdout, new RegExp(`^run ${settledRun}: settled · \\d+ events$`, "m"));
    const json = await ariadne(["status", settledRun, "--follow", "--json"], env);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(lines(json.stdout).length, 1, json.stdout);
    assert.equal(JSON.parse(json.stdout).state, "settled");
    const unknown = await ariadne(["status", "no-such-run", "--follow"], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^ariadne: no run no-such-run/m);
  });

  test("status --help shows --follow", async () => {
    const help = await ariadne(["status", "--help"], {});
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: ariadne status RUN \[--json\] \[--follow\]/);
    assert.match(help.stdout, /^ {2}--follow +follow the run until it stops$/m);
  });
});
