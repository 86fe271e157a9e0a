import { pathToFileURL } from "node:url";
import { getHeapSpaceStatistics } from "node:v8";
import { setV8FlagsFor } from "../cli/v8Flags.mjs";

/**
 * One fresh process of `npm run bench -- rss` (spawned by bench/rss.ts; not a
 * bench itself, it exports no main()). It does one thing and reports its peak
 * RSS as one JSON line on stdout starting with RSS_PREFIX:
 *
 *   --mode=empty      nothing: node (and the loader it runs under) alone
 *   --mode=imports    imports the runtime's modules, one group after another, then opens the store
 *   --mode=floor      sequential single-row INSERT commits of a turn-sized jsonb payload (--steps, --payload-bytes), pg only
 *   --mode=scenario   --runs runs of the overhead scenario one after another on --url (as bench/overhead's sequential row)
 *
 * Modules are imported inside each mode, so a mode pays only for what it uses.
 * Each runs with the V8 flags `ariadne worker` sets on itself (cli/v8Flags.mjs),
 * or V8's defaults with --v8-defaults.
 */
export const RSS_PREFIX = "@rss-child ";

export interface MemorySample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

export interface RssReport {
  mode: string;
  /** process.resourceUsage().maxRSS at the end (KB): the peak. */
  maxRssKb: number;
  /** process.memoryUsage() at the sample (every 10 ms) with the highest rss. */
  atPeak: MemorySample;
  /** After each phase: the peak so far (KB) and the heap in use then. */
  phases: { name: string; maxRssKb: number; heapUsed: number; external: number }[];
  /** V8's heap spaces at the end: committed size and used bytes. */
  heapSpaces: { name: string; size: number; used: number }[];
  /** What the mode did (runs, turns, inserts). */
  work: string;
}

const sample = (): MemorySample => {
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapTotal, heapUsed, external, arrayBuffers };
};

async function child(argv: readonly string[]): Promise<void> {
  if (!argv.includes("--v8-defaults")) setV8FlagsFor("worker");
  const flag = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const mode = flag("mode") ?? "empty";
  const url = flag("url");
  let atPeak = sample();
  const sampler = setInterval(() => {
    const s = sample();
    if (s.rss > atPeak.rss) atPeak = s;
  }, 10);
  const phases: RssReport["phases"] = [];
  const phase = (name: string) => {
    const s = sample();
    if (s.rss > atPeak.rss) atPeak = s;
    phases.push({ name, maxRssKb: process.resourceUsage().maxRSS, heapUsed: s.heapUsed, external: s.external });
  };
  phase("start");
  let work = "";
  try {
    if (mode === "imports") {
      await import("pg");
      phase("pg");
      await import("kysely");
      phase("+ kysely");
      await import("zod");
      phase("+ zod");
      await import("xstate");
      phase("+ xstate");
      await import("../events/index.ts");
      phase("+ events/");
      await import("../actors/index.ts");
      phase("+ actors/");
      await import("../runs/index.ts");
      phase("+ runs/");
      await Promise.all([import("../tools/index.ts"), import("../governance/index.ts"), import("../models/index.ts")]);
      phase("+ tools/ governance/ models/");
      const { openStore } = await import("../events/openStore.ts");
      phase("+ events/openStore");
      const { close } = await openStore({ url: need(url, "url") });
      phase("store opened");
      await close();
      work = "imported the runtime's modules and opened the store";
    } else if (mode === "floor") {
      const { default: pg } = await import("pg");
      phase("pg");
      const steps = Number(flag("steps"));
      const payload = JSON.stringify({ filler: "x".repeat(Math.max(0, Number(flag("payload-bytes")) - 14)) });
      const client = new pg.Client({ connectionString: need(url, "url") });
      await client.connect();
      phase("connected");
      try {
        await client.query(`CREATE TABLE IF NOT EXISTS bench_rss_floor (id bigserial PRIMARY KEY, payload jsonb NOT NULL)`);
        for (let i = 0; i < steps; i++) await client.query(`INSERT INTO bench_rss_floor (payload) VALUES ($1::jsonb)`, [payload]);
        phase(`${steps} inserts`);
        await client.query(`DROP TABLE bench_rss_floor`);
      } finally {
        await client.end();
      }
      work = `${steps} sequential INSERT commits of ${payload.length} B jsonb`;
    } else if (mode === "scenario") {
      const [{ openStore }, { runOverheadScenario }] = await Promise.all([import("../events/openStore.ts"), import("./overheadRun.ts")]);
      phase("imports");
      const { store, close } = await openStore({ url: need(url, "url") });
      phase("store opened");
      try {
        const runs = Number(flag("runs"));
        // In fifths, so the phases show whether what the heap holds grows with the runs taken.
        const fifth = Math.max(1, Math.floor(runs / 5));
        let done = 0;
        let result: Awaited<ReturnType<typeof runOverheadScenario>> | undefined;
        const turns = { n: 0, events: 0, ms: 0 };
        while (done < runs) {
          const step = Math.min(fifth, runs - done);
          result = await runOverheadScenario(store, { runs: step, concurrent: false });
          done += step;
          turns.n += result.turns;
          turns.events += result.probe.events;
          turns.ms += result.wallMs;
          phase(`${done} runs`);
        }
        const { retainedHeap } = await import("./capacityMemory.ts");
        const heap = retainedHeap();
        phase(`full collection: ${(heap / 2 ** 20).toFixed(1)} MB reachable`);
        work = `${runs} runs one after another, ${turns.n} turns, ${turns.events} events, ${(turns.ms / 1000).toFixed(1)} s`;
      } finally {
        await close();
      }
    } else if (mode !== "empty") {
      throw new Error(`rssChild: unknown --mode=${mode}`);
    }
  } finally {
    clearInterval(sampler);
  }
  const report: RssReport = {
    mode,
    maxRssKb: process.resourceUsage().maxRSS,
    atPeak,
    phases,
    heapSpaces: getHeapSpaceStatistics().map((s) => ({ name: s.space_name, size: s.space_size, used: s.space_used_size })),
    work,
  };
  process.stdout.write(`${RSS_PREFIX}${JSON.stringify(report)}\n`);
}

function need(value: string | undefined, name: string): string {
  if (!value) throw new Error(`rssChild: --${name}= is needed`);
  return value;
}

// The bundle (rss --bundled) keeps this file's own import.meta.url, so it is known by its name there.
if (process.argv[1] && (import.meta.url === pathToFileURL(process.argv[1]).href || process.argv[1].endsWith("rssChild.mjs"))) {
  child(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
