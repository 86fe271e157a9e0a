import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScratchDatabase } from "../../db/scratchDatabase.ts";
import { ADMIN_URL, ENGINES } from "../support/testDatabase.ts";
import { CLI_SCRIPT } from "../support/testBuild.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const STACK_LINE = /^\s+at /m;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI as a user would, in a process of its own, with no debug flag,
 * database URL or API key unless given. `unprivileged`: as root, without the
 * capabilities that let root write where the file modes say no (through
 * setpriv), so a permission error is met as a user meets it; as another user
 * it would not reach a clone in root's home (mode 700), nor its node.
 */
export function ariadne(args: string[], env: Record<string, string> = {}, options: { unprivileged?: boolean } = {}): Promise<CliResult> {
  const base = { ...process.env };
  for (const key of ["ARIADNE_DEBUG", "DATABASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"]) delete base[key];
  const command = [process.execPath, CLI_SCRIPT, ...args];
  const [file, ...rest] = options.unprivileged && process.getuid?.() === 0 ? [...WITHOUT_ROOT_OVERRIDE, ...command] : command;
  return outputOf(spawn(file!, rest, { cwd: ROOT, env: { ...base, ...env }, timeout: 90_000 }));
}

/** util-linux's setpriv, dropping root's permission overrides (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER) for good. */
const WITHOUT_ROOT_OVERRIDE = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", "--inh-caps=-all", "--"];

/** What a spawned process printed, and its exit code, once it closed. */
export function outputOf(child: ChildProcess): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

export const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "");

/** Where a CLI test's commands keep their log: a scratch PostgreSQL database, or a fresh PGlite data dir without PostgreSQL. */
export interface CliStore {
  /** Pass to `ariadne` as (args suffix, env). */
  args: string[];
  env: Record<string, string>;
  /** The same store, for opening it in the test (openStore). */
  open: { url?: string; dataDir?: string };
  dispose(): Promise<void>;
}

export async function cliStore(label: string): Promise<CliStore> {
  if (ENGINES.includes("postgres")) {
    const scratch = await createScratchDatabase(`ariadne_test_${process.pid}_${label}_${Math.random().toString(36).slice(2, 8)}`, ADMIN_URL);
    return { args: [], env: { DATABASE_URL: scratch.url }, open: { url: scratch.url }, dispose: scratch.drop };
  }
  const dataDir = await mkdtemp(join(tmpdir(), `ariadne-${label}-`));
  return { args: ["--data-dir", dataDir], env: {}, open: { dataDir }, dispose: () => rm(dataDir, { recursive: true, force: true }) };
}

/** A local port nothing listens on: bound by the OS, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
