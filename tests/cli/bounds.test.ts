import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NUMERIC_ENV, readConfig } from "../../cli/config.ts";
import { allCommands, flagsOf } from "../../cli/help.ts";
import { main } from "../../cli/main.ts";
import { ariadne, STACK_LINE } from "./ariadneProcess.ts";

// Issue 33, item 4: every number has bounds, a value outside them is one line naming the flag or variable
// and the bound, exit 2, before any store is opened (the data dir given is never created).
const dir = await mkdtemp(join(tmpdir(), "ariadne-bounds-"));
after(() => rm(dir, { recursive: true, force: true }));

async function inProcess(argv: string[]): Promise<{ code: number; err: string[] }> {
  const err: string[] = [];
  const original = console.error;
  console.error = (...parts: unknown[]) => void err.push(parts.join(" "));
  try {
    return { code: await main(argv, () => {}, readConfig({})), err };
  } finally {
    console.error = original;
  }
}

const refused = (r: { code: number | null; err: string[] } | { code: number | null; stderr: string }, says: RegExp) => {
  const lines = "err" in r ? r.err : r.stderr.trim().split("\n");
  assert.equal(r.code, 2, lines.join("\n"));
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0]!, says);
  assert.doesNotMatch(lines[0]!, STACK_LINE);
};

// The values the issue found accepted, and what now refuses them.
for (const [argv, says] of [
  [["worker", "--lease-ms", "1000000000000000"], /^ariadne: --lease-ms must be at most 86400000 ms \(got 1000000000000000\)$/],
  [["worker", "--poll-ms", "0"], /^ariadne: --poll-ms must be at least 50 ms \(got 0\)$/],
  [["worker", "--poll-ms", "49"], /^ariadne: --poll-ms must be at least 50 ms \(got 49\)$/],
  [["worker", "--concurrency", "1000000000"], /^ariadne: --concurrency must be at most 1000 \(got 1000000000\)$/],
  [["serve", "--concurrency", "1000000000"], /^ariadne: --concurrency must be at most 1000 \(got 1000000000\)$/],
  [["worker", "--idle-exit-ms", "86400001"], /^ariadne: --idle-exit-ms must be at most 86400000 ms \(got 86400001\)$/],
  [["resume", "r", "--wait-ms", "1e9"], /^ariadne: --wait-ms must be a non-negative integer, 0 to 86400000 ms \(got "1e9"\)$/],
  [["serve", "--port", "65536"], /^ariadne: --port must be at most 65535 \(got 65536\)$/],
  [["run", "--model-idle-timeout", "3601"], /^ariadne: --model-idle-timeout must be at most 3600 s \(got 3601\)$/],
  [["eval", "--trials", "101"], /^ariadne: --trials must be at most 100 \(got 101\)$/],
] as const) {
  test(`ariadne ${argv.join(" ")}: exit 2, one line naming the flag and its bound`, async () => {
    const dataDir = join(dir, argv.join("_").replace(/[^\w-]/g, ""));
    refused(await inProcess([...argv, "--data-dir", dataDir]), says);
    assert.equal(existsSync(dataDir), false, "no store was opened");
  });
}

test("every bounded flag of the table refuses one past each bound, naming the flag and the bound", async () => {
  let checked = 0;
  for (const path of allCommands().filter((p) => !p.command.subcommands)) {
    const args = Array.from({ length: path.command.positionals?.min ?? 0 }, (_, i) => `arg${i}`);
    for (const flag of flagsOf(path.command).filter((f) => f.type === "integer" || f.type === "number")) {
      const unit = flag.unit ?? "";
      if (flag.max !== undefined) {
        refused(await inProcess([...path.words, ...args, `--${flag.name}`, String(flag.max + 1)]), new RegExp(`--${flag.name} must be at most ${flag.max}${unit} \\(got ${flag.max + 1}\\)$`));
        checked++;
      }
      if (flag.min !== undefined && flag.min > 0) {
        refused(await inProcess([...path.words, ...args, `--${flag.name}`, String(flag.min - 1)]), new RegExp(`--${flag.name} must be at least ${flag.min}${unit} \\(got ${flag.min - 1}\\)$`));
        checked++;
      }
      refused(await inProcess([...path.words, ...args, `--${flag.name}`, "abc"]), new RegExp(`--${flag.name} (must be|takes) .*got "abc"`));
    }
  }
  assert.ok(checked >= 10, `${checked} bounds checked`);
});

test("the environment's numbers are read with the flags' bounds: one line naming the variable", () => {
  for (const [env, says] of [
    [{ ARIADNE_LEASE_MS: "0" }, /^ARIADNE_LEASE_MS must be at least 1000 ms \(got 0\)$/],
    [{ ARIADNE_LEASE_MS: "abc" }, /^ARIADNE_LEASE_MS must be a positive integer, 1000 to 86400000 ms \(got "abc"\)$/],
    [{ ARIADNE_LEASE_MS: "1000000000000000" }, /^ARIADNE_LEASE_MS must be at most 86400000 ms/],
    [{ ARIADNE_MODEL_IDLE_TIMEOUT_MS: "-5" }, /^ARIADNE_MODEL_IDLE_TIMEOUT_MS must be a positive integer, 1 to 3600000 ms \(got "-5"\)$/],
    [{ ARIADNE_MODEL_IDLE_TIMEOUT_MS: "0" }, /^ARIADNE_MODEL_IDLE_TIMEOUT_MS must be at least 1 ms \(got 0\)$/],
    [{ ARIADNE_SCRIPTED_LATENCY_MS: "soon" }, /^ARIADNE_SCRIPTED_LATENCY_MS must be a non-negative integer, 0 to 600000 ms \(got "soon"\)$/],
    [{ ARIADNE_FETCH_INTERVAL_MS: "60001" }, /^ARIADNE_FETCH_INTERVAL_MS must be at most 60000 ms \(got 60001\)$/],
  ] as const) {
    assert.throws(() => readConfig(env), (e: Error & { code?: string }) => e.code === "USAGE" && says.test(e.message), JSON.stringify(env));
  }
  // In bounds, and unset or empty, they are read as before.
  assert.equal(readConfig({ ARIADNE_LEASE_MS: "3000" }).leaseMs, 3000);
  assert.equal(readConfig({ ARIADNE_LEASE_MS: "" }).leaseMs, 15000);
  assert.equal(readConfig({ ARIADNE_SCRIPTED_LATENCY_MS: "0" }).scriptedLatencyMs, undefined);
  assert.equal(readConfig({ ARIADNE_SCRIPTED_LATENCY_MS: "150" }).scriptedLatencyMs, 150);
  assert.equal(readConfig({ ARIADNE_FETCH_INTERVAL_MS: "0" }).web?.hostIntervalMs, 0);
  assert.deepEqual(NUMERIC_ENV.map((v) => v.name), [
    "ARIADNE_LEASE_MS",
    "ARIADNE_MODEL_IDLE_TIMEOUT_MS",
    "ARIADNE_SCRIPTED_LATENCY_MS",
    "ARIADNE_DATABASE_WAIT_MS",
    "ARIADNE_STREAMS_PER_KEY",
    "ARIADNE_STREAMS_PER_TENANT",
    "ARIADNE_QUEUED_PER_KEY",
    "ARIADNE_QUEUED_PER_TENANT",
    "ARIADNE_FETCH_INTERVAL_MS",
    "ARIADNE_COMPUTE_TIME_MS",
    "ARIADNE_COMPUTE_MEMORY_MB",
    "ARIADNE_COMPUTE_PROCESSES",
    "ARIADNE_COMPUTE_WORKSPACE_MB",
    "ARIADNE_COMPUTE_WORKSPACE_FILES",
    "ARIADNE_COMPUTE_TMP_MB",
    "ARIADNE_COMPUTE_TMP_FILES",
    "ARIADNE_COMPUTE_OPEN_FILES",
  ]);
});

// As a user meets them: a real process, exit 2, one line, nothing opened.
for (const [env, says] of [
  [{ ARIADNE_LEASE_MS: "abc" }, /^ariadne: ARIADNE_LEASE_MS must be a positive integer/],
  [{ ARIADNE_MODEL_IDLE_TIMEOUT_MS: "-5" }, /^ariadne: ARIADNE_MODEL_IDLE_TIMEOUT_MS must be/],
] as const) {
  test(`${Object.entries(env)[0]!.join("=")} ariadne status RUN: exit 2, one line (a real process)`, async () => {
    const dataDir = join(dir, `env-${Object.keys(env)[0]}`);
    refused(await ariadne(["status", "some-run", "--data-dir", dataDir], { ...env }), says);
    assert.equal(existsSync(dataDir), false, "no store was opened");
  });
}
