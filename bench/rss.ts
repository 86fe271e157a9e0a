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

/**
 * Peak RSS of a worker's work, each figure in a fresh process (bench/rssChild.ts)
 * so nothing else inflates it, on one scratch PostgreSQL database:
 *
 *   scenario  50 runs of the overhead scenario one after another (Main + 4 Children x 10 turns, zero-latency
 *             scripted model keeping no requests), as bench/overhead's sequential row (aim, issue 19: <= 120 MB)
 *   floor     the baseline: as many sequential single-row INSERT commits of a turn-sized jsonb payload as the
 *             scenario takes turns, through pg alone
 *   imports   the runtime's modules imported (one group at a time) and the store opened, no run
 *   empty     node and the loader alone
 *
 * Every child runs as the CLI does (node --import tsx) unless --bundled, which runs
 * one esbuild bundle of the child with plain node (packages external, as tests/build.ts).
 *
 *   npm run bench -- rss
 *   npm run bench -- rss --runs=50 --bundled --node-flags="--max-semi-space-size=1"
 */
const AIM_MB = 120;
const PAYLOAD_BYTES = 1200;

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const runs = Number(flag("runs") ?? 50);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`rss: --runs must be a positive integer, not "${flag("runs")}"`);
  const nodeFlags = flag("node-flags")?.split(" ").filter(Boolean) ?? [];
  const bundled = argv.includes("--bundled");
  const started = performance.now();
  const cpus = availableParallelism();
  progress(`rss bench: peak RSS of fresh processes; ${runs} runs of the overhead scenario against ${runs * TURNS_PER_RUN} raw INSERT commits`);
  progress(`machine: ${cpus} CPUs, load average ${loadavg()[0].toFixed(2)}; node ${process.version}${nodeFlags.length ? `, flags ${nodeFlags.join(" ")}` : ""}; ${bundled ? "bundled (esbuild), plain node" : "node --import tsx, as the CLI runs"}`);
  const bench = await openBenchPostgres();
  const built = bundled ? await bundleChild() : null;
  const reports: Record<string, RssReport> = {};
  try {
    progress(`postgres: ${bench.describe}`);
    const script = built?.script ?? fileURLToPath(new URL("./rssChild.ts", import.meta.url));
    const node = [...nodeFlags, ...(built ? [] : ["--import", "tsx"]), script, `--url=${bench.url}`];
    for (const [mode, extra] of [
      ["empty", []],
      ["imports", []],
      ["floor", [`--steps=${runs * TURNS_PER_RUN}`, `--payload-bytes=${PAYLOAD_BYTES}`]],
      ["scenario", [`--runs=${runs}`]],
    ] as const) {
      progress(`${mode}: a fresh process`);
      reports[mode] = await runChild([...node, `--mode=${mode}`, ...extra]);
    }
  } finally {
    await bench.close();
    if (built) rmSync(built.dir, { recursive: true, force: true });
  }

  const mb = (kb: number) => kb / 1024;
  const floor = reports.floor.maxRssKb;
  console.log(`\nPeak RSS (process.resourceUsage().maxRSS) of fresh processes, beside the raw floor's (aim: ${runs} runs <= ${AIM_MB} MB)`);
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

/** rssChild.ts bundled as the command line is (build/bundle.ts), under node_modules/.cache so its bare imports resolve. */
async function bundleChild(): Promise<{ dir: string; script: string }> {
  const { bundle, ROOT } = await import("../build/bundle.ts");
  const cache = join(ROOT, "node_modules", ".cache");
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "ariadne-rss-"));
  await bundle(["bench/rssChild.ts"], dir);
  return { dir, script: join(dir, "bench", "rssChild.mjs") };
}

function progress(message: string): void {
  console.log(`· ${message}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
