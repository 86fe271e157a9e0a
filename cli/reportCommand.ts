import type { OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { type ExecutorReport, type Figures, type LimitLeft, type RunReport, projectReport } from "../projections/index.ts";
import { formatTokens } from "./formatTokens.ts";

/** `ariadne report RUN`: the run report, read from the log only. */
export async function reportCommand(options: OpenOptions & { runId: string; json: boolean; out: (line: string) => void }): Promise<number> {
  const { store, close } = await openStore({ ...options, readOnly: true });
  try {
    const report = await projectReport(store, options.runId);
    if (options.json) options.out(JSON.stringify(report));
    else for (const line of renderReport(report)) options.out(line);
    return 0;
  } finally {
    await close();
  }
}

export function renderReport(r: RunReport): string[] {
  const lines = [`run ${r.runId}`];
  if (r.question) lines.push(`question: ${r.question}`);
  if (r.singleAgent) lines.push("single agent (--single-agent): one executor with every tool but delegate, no Children");
  lines.push(`  ${figuresLine(r.run)}`, `  ${fetchesLine(r.run)}`);
  lines.push(
    `  limits left: run tokens ${left(r.limits.tokens, count)} · cost ${left(r.limits.costMicros, usd)} · wall clock ${left(r.limits.wallClockMs, seconds)} · delegation depth ${left(r.limits.depth, count)}`,
    `  fetch budget left: pages ${left(r.limits.fetches, count)} · bytes ${left(r.limits.fetchBytes, bytes)}`,
  );
  // Only a run whose model searched server-side (ARIADNE_SEARCH=anthropic) has searches to show.
  if (r.run.webSearches > 0) lines.push(`  web searches: ${count(r.run.webSearches)} server-side (in the cost, 10 USD per 1,000) · search budget left: ${left(r.limits.searches, count)}`);
  const i = r.isolation;
  lines.push(
    `  isolation: Main's context ${count(i.mainContextTokens)} tokens (its largest request) · its ${i.children} Children read ${count(i.childrenInputTokens)} tokens${i.ratio === null ? "" : ` (${i.ratio}x Main's context)`}`,
  );
  for (const e of r.executors) lines.push("", ...renderExecutor(e));
  return lines;
}

function renderExecutor(e: ExecutorReport): string[] {
  const l = e.limits;
  return [
    `${e.role ?? "executor"} ${e.executorId}${e.profile ? ` (${e.profile})` : ""} · model ${e.model ?? "unknown"} · depth ${e.depth}`,
    `  ${figuresLine(e)} · largest request ${count(e.peakInputTokens)} tokens`,
    `  ${fetchesLine(e)}`,
    `  limits left: turns ${left(l.turns, count)} · tool calls ${left(l.toolCalls, count)} · tokens ${left(l.tokens, count)} · wall clock ${left(l.wallClockMs, seconds)} · Children ${left(l.fanOut, count)}`,
  ];
}

function figuresLine(f: Figures): string {
  const cache = f.tokens.cacheRead === null && f.tokens.cacheWrite === null ? "cache not recorded" : cacheLine(f.tokens);
  const cost = `${usd(f.cost.micros)}${f.cost.estimated ? ", estimated" : ""}`;
  const wall = f.wallTimeMs === null ? "no events" : `${seconds(f.wallTimeMs)}${f.hostedTimeMs !== f.wallTimeMs ? ` (${seconds(f.hostedTimeMs ?? 0)} hosted)` : ""}`;
  return [
    `${count(f.turns)} turns`,
    `${count(f.toolCalls)} tool calls`,
    `${formatTokens({ inputTokens: f.tokens.input, outputTokens: f.tokens.output }, f.tokens.estimated)} (${cache})`,
    `cost ${cost}`,
    `model ${seconds(f.modelLatencyMs)}`,
    `wall ${wall}`,
  ].join(" · ");
}

/** Cache reads and writes, and the share of all input read from the cache (what caching saved on). */
function cacheLine(t: Figures["tokens"]): string {
  const read = t.cacheRead ?? 0;
  const write = t.cacheWrite ?? 0;
  const all = t.input + read + write;
  return `cache read ${count(read)}, write ${count(write)}, ${all ? Math.round((read / all) * 100) : 0}% of input cached`;
}

const fetchesLine = (f: Figures) =>
  `fetches: ${f.fetches.calls} (${f.fetches.network} from the network, ${f.fetches.cacheHits} from the run's cache, ${f.fetches.duplicatesAvoided} duplicates avoided, ${f.fetches.refetched} fetched again)`;

const count = (n: number) => n.toLocaleString("en-US");
const bytes = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`);
const usd = (micros: number) => `$${(micros / 1e6).toFixed(micros % 10_000 === 0 ? 2 : 6)}`;
const seconds = (ms: number) => (ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 3 : 1)} s`);
const left = (l: LimitLeft, show: (n: number) => string) => (l.cap === null ? `${show(l.used)} used, no cap recorded` : `${show(l.left!)} of ${show(l.cap)}`);
