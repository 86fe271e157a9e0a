import { pathToFileURL } from "node:url";
import { Runtime } from "../actors/index.ts";
import { ScriptedModel } from "../models/index.ts";
import type { ModelRequest } from "../models/types.ts";
import { turnsTaken } from "../scenarios/requestView.ts";
import { ToolRegistry } from "../tools/index.ts";
import { openBenchPostgres } from "./overheadEngines.ts";
import { NOOP_TOOL, noopLookup } from "./overheadScenario.ts";

/**
 * Resuming a crashed run: Main delegates CHILDREN Children in one turn; each
 * Child makes TURNS_BEFORE tool turns and is asked for the next one when the
 * process "dies" (its model never answers; the runtime is dropped). A fresh
 * Runtime on the same store then resumes the run, as a worker taking it over
 * does: read the run, rebuild every live executor, re-run the read-only calls
 * left without an outcome, and call the model again. Prints the time from
 * resumeRun to the first new model call and to the last Child's, beside a
 * plain read of the run's events (aim: first call <= 200 ms).
 *
 *   npm run bench -- resume            (RESUME_CHILDREN=N, default 99: 100 executors)
 */
const CHILDREN = Number(process.env.RESUME_CHILDREN ?? 99);
const TURNS_BEFORE = 5;
const AIM_MS = 200;
const SAMPLES = 3;

export async function main(): Promise<void> {
  const bench = await openBenchPostgres();
  try {
    console.log(`· resume bench: Main + ${CHILDREN} Children, each ${TURNS_BEFORE} tool turns in when the process stops; ${bench.describe}`);
    const rows: string[] = [];
    for (let sample = 1; sample <= SAMPLES; sample++) {
      const runId = await crashedRun(bench.store, sample);
      const read = performance.now();
      const events = await bench.store.readRun(runId);
      const readMs = performance.now() - read;

      const calls: number[] = [];
      const resumed = new Runtime(runtimeOptions(bench.store, (request) => {
        if (!isMain(request)) calls.push(performance.now());
        return new Promise<never>(() => {}); // no need to go further: the first calls are what is timed
      }));
      const started = performance.now();
      await resumed.resumeRun(runId);
      while (calls.length < CHILDREN) await new Promise((resolve) => setTimeout(resolve, 5));
      const first = Math.min(...calls) - started;
      const last = Math.max(...calls) - started;
      rows.push(
        `  sample ${sample}: ${events.length} events; read the run ${readMs.toFixed(1)} ms; ` +
          `resume -> first model call ${first.toFixed(1)} ms, -> every Child's ${last.toFixed(1)} ms (${first <= AIM_MS ? "aim met" : "aim MISSED"})`,
      );
    }
    console.log(`\nResuming a crashed run of ${CHILDREN + 1} executors (aim: first new model call <= ${AIM_MS} ms)`);
    for (const r of rows) console.log(r);
  } finally {
    await bench.close();
  }
}

const isMain = (request: ModelRequest) => request.tools.some((t) => t.name === "answer");

function runtimeOptions(store: ConstructorParameters<typeof Runtime>[0]["store"], child: (request: ModelRequest) => Promise<never> | ReturnType<typeof lookup>) {
  const model = new ScriptedModel({ name: "resume-bench", keepRequests: false, policy: (request) => (isMain(request) ? delegateAll(request) : child(request)) });
  return {
    store,
    models: { main: model, child: model },
    modelNames: { main: "bench-main", child: "bench-child" },
    tools: new ToolRegistry().register(noopLookup),
    limits: { main: { maxToolCalls: CHILDREN + 10 } },
  };
}

/** Runs Main and its Children until every Child is asking for turn TURNS_BEFORE + 1, then drops that runtime. */
async function crashedRun(store: ConstructorParameters<typeof Runtime>[0]["store"], sample: number): Promise<string> {
  let waiting = 0;
  const first = new Runtime(
    runtimeOptions(store, (request) => {
      if (turnsTaken(request) < TURNS_BEFORE) return lookup(turnsTaken(request));
      waiting++;
      return new Promise<never>(() => {});
    }),
  );
  const run = await first.startRun(`Resume bench ${process.pid} sample ${sample}`);
  while (waiting < CHILDREN) await new Promise((resolve) => setTimeout(resolve, 10));
  return run.runId;
}

const lookup = (step: number) => ({ content: [{ type: "tool_use" as const, name: NOOP_TOOL, input: { key: `k${step + 1}` } }] });

function delegateAll(request: ModelRequest) {
  const question = typeof request.messages[0]?.content === "string" ? request.messages[0].content : "resume bench";
  return {
    content: Array.from({ length: CHILDREN }, (_, i) => ({
      type: "tool_use" as const,
      name: "delegate",
      input: {
        question: `${question} / child ${i + 1}: look up keys.`,
        context: "Benchmark task: call noop_lookup once per turn.",
        done_when: "Keys looked up.",
        profile: "general",
        tools: [NOOP_TOOL],
      },
    })),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
