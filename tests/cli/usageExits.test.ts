import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../cli/main.ts";
import { ariadne, STACK_LINE } from "./ariadneProcess.ts";

// Bad usage is refused before any store is opened: the data dir given is never created.
const dir = await mkdtemp(join(tmpdir(), "ariadne-usage-"));
after(() => rm(dir, { recursive: true, force: true }));

/**
 * The CLI's entry in this process, its stderr captured. Bad usage is refused before any store
 * opens, so nothing outlives the call; the binary's own exit code is checked by spawning it below.
 */
async function inProcess(argv: string[]): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...parts: unknown[]) => void lines.push(parts.join(" "));
  try {
    const code = await main(argv, () => {});
    return { code, stderr: lines.join("\n") };
  } finally {
    console.error = original;
  }
}

// Issue 17, defect 7: one line naming the flag (never the whole usage), exit 2, on every command.
const CASES = [
  [["run", "--max-run-tokens", "-5"], /--max-run-tokens: expected a positive integer, got "-5"/],
  [["run", "--max-cost-usd", "-0.5"], /--max-cost-usd: expected a positive number, got "-0.5"/],
  [["run", "--max-child-seconds", "0"], /--max-child-seconds: expected a positive integer, got "0"/],
  [["run", "--model-idle-timeout", "-1"], /--model-idle-timeout takes a positive number of seconds, got "-1"/],
  [["run", "--reviewer", "loud"], /--reviewer takes off, shadow or advisory, got "loud"/],
  [["run", "--max-run-tokens"], /--max-run-tokens/],
  [["run", "--no-such-flag"], /--no-such-flag/],
  [["verify", "abc", "--root", "-1"], /--root: a root hash is 64 lowercase hex characters/],
  [["verify", "abc", "--root", "XYZ"], /--root: a root hash is 64 lowercase hex characters/],
  [["worker", "--concurrency", "-1"], /--concurrency must be .*got "-1"/],
  [["worker", "--lease-ms", "-5"], /--lease-ms must be .*got "-5"/],
  [["worker", "--poll-ms", "-5"], /--poll-ms must be .*got "-5"/],
  [["worker", "--idle-exit-ms", "abc"], /--idle-exit-ms must be .*got "abc"/],
  [["resume", "abc", "--wait-ms", "-5"], /--wait-ms must be .*got "-5"/],
  [["resume"], /resume takes exactly one run id/],
  [["status"], /status takes exactly one run id/],
  [["status", "a", "b"], /status takes exactly one run id/],
  [["cancel"], /cancel takes exactly one run id/],
  [["cancel", "abc", "--executor"], /--executor/],
  [["serve", "--port", "-1"], /--port must be a port number \(got "-1"\)/],
  [["serve", "--concurrency", "-2"], /--concurrency must be a positive integer \(got "-2"\)/],
  [["submit", "--bogus"], /--bogus/],
  [["tools", "list", "--bogus"], /--bogus/],
] as const;

// Every case through main in this process (a spawned CLI costs 1-2 s of CPU); one command and one
// run-lifecycle command as real processes, so the exit code is the process's too.
const SPAWNED = new Set(["run --max-run-tokens -5", "worker --concurrency -1"]);
for (const [args, says] of CASES) {
  const spawned = SPAWNED.has(args.join(" "));
  test(`ariadne ${args.join(" ")} is bad usage: exit 2, one line${spawned ? " (a real process)" : ""}`, async () => {
    const dataDir = join(dir, `never-${args.join("_").replace(/[^\w-]/g, "")}`);
    const r = spawned ? await ariadne([...args, "--data-dir", dataDir]) : await inProcess([...args, "--data-dir", dataDir]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, /^ariadne: /);
    assert.match(r.stderr, says);
    assert.doesNotMatch(r.stderr, STACK_LINE);
    assert.equal(existsSync(dataDir), false, "no store was opened");
  });
}
