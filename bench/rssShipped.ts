import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The command line as a user runs it (`ariadne ...`, i.e. node cli/bin.mjs on
 * its build), measured as issue 34 measured it: `/usr/bin/time -f %M`, the peak
 * RSS of the largest process in the command's tree (it waits for all of them),
 * and the CPU (user + system) of the whole tree.
 */
const BIN = fileURLToPath(new URL("../cli/bin.mjs", import.meta.url));
const TIME = "/usr/bin/time";

export interface Usage {
  maxRssKb: number;
  cpuS: number;
  wallS: number;
}

/** One `ariadne <args>`, its output discarded; fails naming the command if it does. */
export function timeCommand(args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Usage> {
  if (!existsSync(TIME)) throw new Error(`rss: ${TIME} is needed to measure a command's process tree (apt-get install time)`);
  const dir = mkdtempSync(join(tmpdir(), "ariadne-rss-time-"));
  const report = join(dir, "usage");
  return new Promise<Usage>((resolve, reject) => {
    const child = spawn(TIME, ["-o", report, "-f", "%M %U %S %e", process.execPath, BIN, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env },
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        if (code !== 0) throw new Error(`rss: ariadne ${args.join(" ")} exited ${code}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`);
        const [kb, user, sys, wall] = readFileSync(report, "utf8").trim().split("\n").at(-1)!.split(" ").map(Number);
        resolve({ maxRssKb: kb, cpuS: user + sys, wallS: wall });
      } catch (e) {
        reject(e);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/** The command's output (stdout), for a run id to ask about. */
export function outputOf(args: readonly string[], env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "pipe", "ignore"], env: { ...process.env, ...env } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`rss: ariadne ${args.join(" ")} exited ${code}`))));
  });
}

/** A fresh embedded store's directory, removed by the returned function. */
export function scratchDataDir(): { dataDir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "ariadne-rss-store-"));
  return { dataDir: join(dir, "data"), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
