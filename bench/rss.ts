import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { openBenchPostgres } from "./overheadEngines.ts";
import { f, table } from "./overheadReport.ts";
import { TURNS_PER_RUN } from "./overheadScenario.ts";
import { RSS_PREFIX, type RssReport } from "./rssChild.ts";
import { median, outputOf, scratchDataDir, timeCommand, type Usage } from "./rssShipped.ts";
import { progress } from "./progress.ts";
import { v8FlagsFor } from "../cli/v8Flags.mjs";

/**
 * Memory and start-up as shipped (issue 34): the command line built as `npm ci`
 * builds it (build/prepare.ts) and run as a user runs it, then a worker's work
 * in fresh processes. Every figure is the median of --repeat runs (default 3).
 *
 * The command line (bench/rssShipped.ts: `/usr/bin/time`, the peak RSS of the
 * largest process in the tree, CPU user + system):
 *
 *   ariadne --help, ariadne tools list      CPU at start (aim < 0.3 s)
 *   ariadne status RUN (PostgreSQL)         a command that opens the store, for comparison
 *   ariadne run, embedded store             the default scenario on a fresh data directory (aim <= 300 MB)
 *   ariadne run, PostgreSQL                 the default scenario (aim <= 120 MB)
 *
 * A worker's work, each in a fresh process (bench/rssChild.ts) on one scratch
 * PostgreSQL database, bundled as the command line is (--tsx: under the tsx
 * loader instead, as before issue 34):
 *
 *   scenario  50 runs of the overhead scenario one after another (Main + 4 Children x 10 turns, zero-latency
 *             scripted model keeping no requests), as bench/overhead's sequential row (aim: <= 120 MB)
 *   floor     the baseline: as many sequential single-row INSERT commits of a turn-sized jsonb payload as the
 *             scenario takes turns, through pg alone
 *   imports   the runtime's modules imported (one group at a time) and the store opened, no run
 *   empty     node (and the loader) alone
 *
 *   npm run bench -- rss
 *   npm run bench -- rss --runs=50 --repeat=3 --tsx --node-flags="--optimize-for-size"
 *   npm run bench -- rss --v8-defaults      the worker's processes without the V8 flags `ariadne worker` sets (cli/v8Flags.mjs)
 */
const AIM_MB = 120;
const AIM_RUN_EMBEDDED_MB = 300;
const AIM_RUN_POSTGRES_MB = 120;
const AIM_START_CPU_S = 0.3;
const PAYLOAD_BYTES = 1200;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const runs = Number(flag("runs") ?? 50);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`rss: --runs must be a positive integer, not "${flag("runs")}"`);
  const nodeFlags = flag("node-flags")?.split(" ").filter(Boolean) ?? [];
  const bundled = !argv.includes("--tsx");
  const v8Defaults = argv.includes("--v8-defaults");
  const repeat = Number(flag("repeat") ?? 3);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error(`rss: --repeat must be a positive integer, not "${flag("repeat")}"`);
  const started = performance.now();
  const cpus = availableParallelism();
  progress(`rss bench: peak RSS of fresh processes; ${runs} runs of the overhead scenario against ${runs * TURNS_PER_RUN} raw INSERT commits`);
  progress(`machine: ${cpus} CPUs, load average ${loadavg()[0].toFixed(2)}; node ${process.version}${nodeFlags.length ? `, flags ${nodeFlags.join(" ")}` : ""}; ${bundled ? "bundled (esbuild), plain node" : "node --import tsx (the CLI before its build)"}; ${v8Defaults ? "V8's defaults" : `the worker's V8 flags (${v8FlagsFor("worker").join(" ")})`}`);
  const bench = await openBenchPostgres();
  const built = bundled ? await bundleChild() : null;
  const reports: Record<string, RssReport> = {};
  let shipped: ShippedRow[] = [];
  try {
    progress(`postgres: ${bench.describe}`);
    shipped = await measureShipped(bench.url!, repeat);
    const script = built?.script ?? fileURLToPath(new URL("./rssChild.ts", import.meta.url));
    const node = [...nodeFlags, ...(built ? [] : ["--import", "tsx"]), script, `--url=${bench.url}`, ...(v8Defaults ? ["--v8-defaults"] : [])];
    for (const [mode, extra] of [
      ["empty", []],
      ["imports", []],
      ["floor", [`--steps=${runs * TURNS_PER_RUN}`, `--payload-bytes=${PAYLOAD_BYTES}`]],
      ["scenario", [`--runs=${runs}`]],
    ] as const) {
      progress(`${mode}: ${repeat} fresh processes`);
      const taken: RssReport[] = [];
      for (let i = 0; i < repeat; i++) taken.push(await runChild([...node, `--mode=${mode}`, ...extra]));
      // The report whose peak is the median one.
      reports[mode] = taken.sort((x, y) => x.maxRssKb - y.maxRssKb)[taken.length >> 1];
    }
  } finally {
    await bench.close();
    if (built) rmSync(built.dir, { recursive: true, force: true });
  }

  const mb = (kb: number) => kb / 1024;
  console.log(`\nThe command line as shipped (node cli/bin.mjs on its build, no loader): median of ${repeat}, /usr/bin/time (peak RSS of the largest process in the tree; CPU user + system)\n`);
  table(
    ["command", "peak RSS MB", "CPU s", "wall s", "aim"],
    shipped.map((r) => [r.label, f(mb(r.usage.maxRssKb), 1), f(r.usage.cpuS, 2), f(r.usage.wallS, 2), r.aim ? `${r.aim.text}: ${r.aim.met(r.usage) ? "met" : "MISSED"}` : ""]),
  );
  const floor = reports.floor.maxRssKb;
  console.log(`\nA worker's work: peak RSS (process.resourceUsage().maxRSS) of fresh processes, ${bundled ? "bundled as shipped" : "under tsx"}, median of ${repeat}, beside the raw floor's (aim: ${runs} runs <= ${AIM_MB} MB)`);
  console.log("  heap used / external / arrayBuffers: process.memoryUsage() at the 10 ms sample with the highest RSS\n");
  table(
    ["process", "does", "peak RSS MB", "÷ floor", "heap used MB", "heap total MB", "external MB", "arrayBuffers MB", "aim"],
    ["empty", "imports", "floor", "scenario"].map((mode) => {
      const r = reports[mode];
      const p = r.atPeak;
      return [
        mode,
        r.work || "nothing",
        f(mb(r.maxRssKb), 1),
        `${f(r.maxRssKb / floor, 2)}x`,
        f(p.heapUsed / 2 ** 20, 1),
        f(p.heapTotal / 2 ** 20, 1),
        f(p.external / 2 ** 20, 1),
        f(p.arrayBuffers / 2 ** 20, 1),
        mode === "scenario" ? (mb(r.maxRssKb) <= AIM_MB ? "met" : "MISSED") : "",
      ];
    }),
  );
  for (const mode of ["imports", "scenario"]) {
    console.log(`\n  ${mode}: peak RSS and heap after each phase`);
    table(
      ["phase", "peak RSS MB", "heap used MB", "external MB"],
      reports[mode].phases.map((p) => [p.name, f(mb(p.maxRssKb), 1), f(p.heapUsed / 2 ** 20, 1), f(p.external / 2 ** 20, 1)]),
    );
  }
  console.log(`\n  scenario: V8 heap spaces at the end (committed / used)`);
  table(
    ["space", "committed MB", "used MB"],
    reports.scenario.heapSpaces.filter((s) => s.size > 0).map((s) => [s.name, f(s.size / 2 ** 20, 1), f(s.used / 2 ** 20, 1)]),
  );
  const runtimeWork = reports.scenario.maxRssKb - reports.imports.maxRssKb;
  console.log(
    `\n  Of the scenario's ${f(mb(reports.scenario.maxRssKb), 1)} MB: ${f(mb(reports.empty.maxRssKb), 1)} MB is node${bundled ? "" : " and tsx"} alone, ` +
      `${f(mb(reports.imports.maxRssKb - reports.empty.maxRssKb), 1)} MB the runtime's imports and an open store, ${f(mb(runtimeWork), 1)} MB the ${runs} runs' working memory.`,
  );
  console.log(`  total bench time ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

interface ShippedRow {
  label: string;
  usage: Usage;
  aim?: { text: string; met: (u: Usage) => boolean };
}

/** Builds the command line as npm ci does, then times each command `repeat` times (medians of each figure). */
async function measureShipped(url: string, repeat: number): Promise<ShippedRow[]> {
  const [{ buildCli }, { pgliteTemplate }, { PGLITE_SETTINGS }, { PGlite }] = await Promise.all([
    import("../build/cli.ts"),
    import("../db/pgliteTemplate.ts"),
    import("../db/openDatabase.ts"),
    import("@electric-sql/pglite"),
  ]);
  progress("the command line built and the embedded store's template made, as npm ci does (build/prepare.ts)");
  await buildCli();
  await pgliteTemplate([...PGlite.defaultStartParams, ...PGLITE_SETTINGS]);
  const onPostgres = { DATABASE_URL: url };
  const embedded = { DATABASE_URL: undefined };
  const runId = (JSON.parse(await outputOf(["run", "--json"], onPostgres)) as { runId: string }).runId;
  const mb = (limit: number) => (u: Usage) => u.maxRssKb / 1024 <= limit;
  const cpu = (u: Usage) => u.cpuS < AIM_START_CPU_S;
  const commands: { label: string; args: string[]; env: Record<string, string | undefined>; aim?: ShippedRow["aim"]; store?: boolean }[] = [
    { label: "ariadne --help", args: ["--help"], env: embedded, aim: { text: `CPU < ${AIM_START_CPU_S} s`, met: cpu } },
    { label: "ariadne tools list", args: ["tools", "list"], env: embedded, aim: { text: `CPU < ${AIM_START_CPU_S} s`, met: cpu } },
    { label: "ariadne status RUN (PostgreSQL)", args: ["status", runId], env: onPostgres },
    { label: "ariadne run, embedded, fresh store", args: ["run"], env: embedded, store: true, aim: { text: `<= ${AIM_RUN_EMBEDDED_MB} MB`, met: mb(AIM_RUN_EMBEDDED_MB) } },
    { label: "ariadne run, PostgreSQL", args: ["run"], env: onPostgres, aim: { text: `<= ${AIM_RUN_POSTGRES_MB} MB`, met: mb(AIM_RUN_POSTGRES_MB) } },
  ];
  const rows: ShippedRow[] = [];
  for (const c of commands) {
    progress(`${c.label}: ${repeat} times`);
    const taken: Usage[] = [];
    for (let i = 0; i < repeat; i++) {
      const scratch = c.store ? scratchDataDir() : null;
      try {
        taken.push(await timeCommand(scratch ? [...c.args, "--data-dir", scratch.dataDir] : c.args, c.env));
      } finally {
        scratch?.remove();
      }
    }
    const usage = { maxRssKb: median(taken.map((u) => u.maxRssKb)), cpuS: median(taken.map((u) => u.cpuS)), wallS: median(taken.map((u) => u.wallS)) };
    rows.push({ label: c.label, usage, aim: c.aim });
  }
  return rows;
}

function runChild(args: string[]): Promise<RssReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
    let report: RssReport | undefined;
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith(RSS_PREFIX)) report = JSON.parse(line.slice(RSS_PREFIX.length)) as RssReport;
      else console.log(`  [rss child] ${line}`);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => (report && code === 0 ? resolve(report) : reject(new Error(`rss child ${args.join(" ")} ended (${signal ?? code}) without a report`))));
  });
}

/** rssChild.ts bundled as the command line is (build/bundle.ts, packages bundled), under node_modules/.cache so the packages left out resolve. */
async function bundleChild(): Promise<{ dir: string; script: string }> {
  const { bundle, ROOT } = await import("../build/bundle.ts");
  const cache = join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "ariadne-rss-"));
  await bundle(["bench/rssChild.ts"], dir, { packages: "bundled" });
  return { dir, script: join(dir, "bench", "rssChild.mjs") };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
