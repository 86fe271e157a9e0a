import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CLI_SCRIPT } from "../support/testBuild.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export type Spawned = ChildProcess & { output: Promise<{ code: number | null; stdout: string; stderr: string }>; seen: { stdout: string } };

/** The store spawned commands share: environment and extra arguments (a scratch database, or --data-dir). */
export interface SharedStore {
  env: Record<string, string>;
  args: string[];
}

/** Runs `ariadne ARGS` as its own process on the shared store, collecting its output. */
export function spawnAriadne(store: SharedStore, args: string[], extraEnv: Record<string, string> = {}): Spawned {
  const env = { ...process.env, ...store.env, ...extraEnv };
  for (const k of ["ARIADNE_DEBUG", "ANTHROPIC_API_KEY", ...(store.env.DATABASE_URL ? [] : ["DATABASE_URL"])]) if (!(k in store.env)) delete env[k];
  const child = spawn(process.execPath, [CLI_SCRIPT, ...args, ...store.args], { cwd: ROOT, env, timeout: 240_000 });
  let stdout = "";
  let stderr = "";
  const seen = { stdout: "" };
  child.stdout!.setEncoding("utf8").on("data", (d) => (seen.stdout = stdout += d));
  child.stderr!.setEncoding("utf8").on("data", (d) => (stderr += d));
  const output = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
  return Object.assign(child, { output, seen });
}

/** The URL a spawned `ariadne serve` listens on, from its "listening" log line. */
export async function listening(child: Spawned): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const line = child.seen.stdout.split("\n").find((l) => l.includes('"msg":"listening"'));
    if (line) return JSON.parse(line).url;
    if (child.exitCode !== null) throw new Error(`serve exited: ${(await child.output).stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("serve did not start listening");
}
