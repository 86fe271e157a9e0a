import type { EventStore, RecordedEvent } from "../events/index.ts";
import { INVESTIGATE_PROFILES } from "../governance/config.ts";
import { downtimeBetween } from "../governance/hostedTime.ts";
import { foldAll } from "./projection.ts";
import { type ExecutorTally, type FetchRecord, type RunReportState, runReport } from "./runReport.ts";
import { readKnownRun } from "../events/readKnownRun.ts";

/** A limit: its cap (null when the log does not say), what is used, what is left. */
export interface LimitLeft {
  cap: number | null;
  used: number;
  left: number | null;
}

export interface FetchFigures {
  /** Completed web_fetch calls. */
  calls: number;
  /** Pages read over the network. */
  network: number;
  /** Calls answered from the run's page cache (a page already fetched in the run, at any offset). */
  cacheHits: number;
  /** Cache hits asking again for a normalized URL and offset already read in the run: the same text, not fetched twice. */
  duplicatesAvoided: number;
  /** Network fetches of a normalized URL the run had already fetched (the cache had lost it, e.g. across a restart). */
  refetched: number;
  /** Bytes read over the network (what the run's fetch budget counts). */
  networkBytes: number;
}

export interface Figures {
  turns: number;
  toolCalls: number;
  tokens: { input: number; output: number; cacheRead: number | null; cacheWrite: number | null; estimated: boolean };
  /** Priced per turn from governance/prices.ts, in millionths of a USD; estimated when any turn's tokens were. */
  cost: { micros: number; estimated: boolean };
  /** Time spent waiting on the model, summed over turns. */
  modelLatencyMs: number;
  /** From the first to the last event (null: no events), and the same less time without a host. */
  wallTimeMs: number | null;
  hostedTimeMs: number | null;
  fetches: FetchFigures;
  /** Server-side web searches the model calls ran (ARIADNE_SEARCH=anthropic); in the cost at 10 USD per 1,000. */
  webSearches: number;
}

export interface ExecutorReport extends Figures {
  executorId: string;
  role: string | null;
  parentExecutorId: string | null;
  depth: number;
  profile: string | null;
  model: string | null;
  /** Its largest request's input tokens. */
  peakInputTokens: number;
  limits: { turns: LimitLeft; toolCalls: LimitLeft; tokens: LimitLeft; wallClockMs: LimitLeft; fanOut: LimitLeft };
}

export interface RunReport {
  runId: string;
  question: string | null;
  mainExecutorId: string | null;
  /** One executor with every tool but delegate (`--single-agent`), as the log records it: no Children, nothing isolated. */
  singleAgent: boolean;
  run: Figures;
  limits: { tokens: LimitLeft; costMicros: LimitLeft; wallClockMs: LimitLeft; depth: LimitLeft; fetches: LimitLeft; fetchBytes: LimitLeft; searches: LimitLeft };
  /**
   * Main's context (its largest request's input tokens) against what its
   * Children read (the sum of their input tokens): what delegation kept out of Main.
   */
  isolation: { mainContextTokens: number; childrenInputTokens: number; children: number; ratio: number | null };
  /** Main first, then in order of admission. */
  executors: ExecutorReport[];
}

type CapGroup = Record<string, unknown> | undefined;
const capOf = (group: CapGroup, field: string): number | null => (typeof group?.[field] === "number" ? (group[field] as number) : null);
const limit = (cap: number | null, used: number): LimitLeft => ({ cap, used, left: cap === null ? null : cap - used });
/** The narrower of two caps, either of which may be unknown. */
const narrower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/** The run report of a run's folded state (pure). */
export function runReportOf(runId: string, state: RunReportState): RunReport {
  const fetchKinds = classifyFetches(Object.values(state.executors).flatMap((t) => t.fetches));
  const ids = Object.keys(state.executors).sort((a, b) => rank(state, a) - rank(state, b));
  const executors = ids.map((id) => executorReport(id, state.executors[id]!, state, fetchKinds));
  const tallies = Object.values(state.executors);
  const firstAt = minOf(tallies.map((t) => t.firstAt));
  const lastAt = maxOf(tallies.map((t) => t.lastAt));
  // The run's figures: every executor's together, its wall time from its first executor event to its last.
  const run = figuresOf(tallies, firstAt, lastAt, state, fetchKinds);
  const runCaps = state.caps?.run as CapGroup;
  const main = state.mainExecutorId ? state.executors[state.mainExecutorId] : undefined;
  const children = tallies.filter((t) => t.parentExecutorId !== null && t.parentExecutorId === state.mainExecutorId);
  const childrenInput = children.reduce((s, t) => s + t.inputTokens, 0);
  const mainContext = main?.peakInputTokens ?? 0;
  return {
    runId,
    question: state.question,
    mainExecutorId: state.mainExecutorId,
    singleAgent: state.singleAgent,
    run,
    limits: {
      tokens: limit(capOf(runCaps, "maxTokens"), tallies.reduce((s, t) => s + t.settledTokens, 0)),
      costMicros: limit(capOf(runCaps, "maxCostMicros"), tallies.reduce((s, t) => s + t.settledCostMicros, 0)),
      wallClockMs: limit(capOf(runCaps, "wallClockMs"), run.hostedTimeMs ?? 0),
      depth: limit(capOf(state.caps?.delegation as CapGroup, "maxDepth"), Math.max(0, ...tallies.map((t) => t.depth))),
      // The run's fetch budget (governance/checkLimits.ts fetchStop): pages read from the network and their bytes.
      fetches: limit(capOf(state.caps?.fetch as CapGroup, "maxFetches"), run.fetches.network),
      fetchBytes: limit(capOf(state.caps?.fetch as CapGroup, "maxBytes"), run.fetches.networkBytes),
      // The run's search budget (governance/checkLimits.ts searchAllowance); caps recorded before it have none.
      searches: limit(capOf(state.caps?.search as CapGroup, "maxSearches"), run.webSearches),
    },
    isolation: { mainContextTokens: mainContext, childrenInputTokens: childrenInput, children: children.length, ratio: mainContext > 0 ? round2(childrenInput / mainContext) : null },
    executors,
  };
}

/** Folds a run's events into its report (pure). */
export function reportOfEvents(runId: string, events: Iterable<RecordedEvent>): RunReport {
  return runReportOf(runId, foldAll(runReport, events));
}

/** A run's report from the store; an unknown run is a NotFoundError naming it. */
export async function projectReport(store: Pick<EventStore, "readRun">, runId: string): Promise<RunReport> {
  const events = await readKnownRun(store, runId);
  return reportOfEvents(runId, events);
}

const rank = (state: RunReportState, id: string) => (id === state.mainExecutorId ? -1 : state.executors[id]!.admittedPosition);

function executorReport(id: string, t: ExecutorTally, state: RunReportState, kinds: Map<FetchRecord, FetchKind>): ExecutorReport {
  const group = (t.role === "main" ? state.caps?.main : t.profile !== null && INVESTIGATE_PROFILES.includes(t.profile) ? state.caps?.investigate : state.caps?.child) as CapGroup;
  const figures = figuresOf([t], t.firstAt, t.lastAt, state, kinds);
  return {
    executorId: id,
    role: t.role,
    parentExecutorId: t.parentExecutorId,
    depth: t.depth,
    profile: t.profile,
    model: t.model,
    peakInputTokens: t.peakInputTokens,
    ...figures,
    limits: {
      // Governance holds an executor to the narrower of its role's cap and the limit frozen at its admission.
      turns: limit(narrower(capOf(group, "maxTurns"), t.limits.maxTurns), t.turns),
      toolCalls: limit(narrower(capOf(group, "maxToolCalls"), t.limits.maxToolCalls), t.toolCalls),
      tokens: limit(capOf(group, "maxTokens"), t.settledTokens),
      wallClockMs: limit(capOf(group, "wallClockMs"), figures.hostedTimeMs ?? 0),
      fanOut: limit(capOf(state.caps?.delegation as CapGroup, "maxFanOut"), t.children),
    },
  };
}

function figuresOf(tallies: ExecutorTally[], firstAt: number | null, lastAt: number | null, state: RunReportState, kinds: Map<FetchRecord, FetchKind>): Figures {
  const sum = (f: (t: ExecutorTally) => number) => tallies.reduce((s, t) => s + f(t), 0);
  const sumNullable = (f: (t: ExecutorTally) => number | null) => tallies.reduce<number | null>((s, t) => (f(t) === null ? s : (s ?? 0) + f(t)!), null);
  const estimated = tallies.some((t) => t.estimatedTurns > 0);
  const wall = firstAt === null || lastAt === null ? null : lastAt - firstAt;
  const fetches = tallies.flatMap((t) => t.fetches).map((f) => kinds.get(f)!);
  const count = (k: FetchKind) => fetches.filter((x) => x === k).length;
  return {
    turns: sum((t) => t.turns),
    toolCalls: sum((t) => t.toolCalls),
    tokens: { input: sum((t) => t.inputTokens), output: sum((t) => t.outputTokens), cacheRead: sumNullable((t) => t.cacheReadTokens), cacheWrite: sumNullable((t) => t.cacheWriteTokens), estimated },
    cost: { micros: sum((t) => t.costMicros), estimated },
    webSearches: sum((t) => t.webSearches),
    modelLatencyMs: round2(sum((t) => t.modelLatencyMs)),
    wallTimeMs: wall,
    hostedTimeMs: wall === null ? null : wall - downtimeBetween(state.downtimes, firstAt!, lastAt!),
    fetches: {
      calls: fetches.length,
      network: count("network") + count("refetched"),
      cacheHits: count("cache") + count("duplicate"),
      duplicatesAvoided: count("duplicate"),
      refetched: count("refetched"),
      networkBytes: tallies.flatMap((t) => t.fetches).reduce((s, f) => s + (kinds.get(f) === "network" || kinds.get(f) === "refetched" ? (f.bytes ?? 0) : 0), 0),
    },
  };
}

type FetchKind = "network" | "cache" | "duplicate" | "refetched";

/**
 * Each fetch of the run, in log order: the first time a page (URL, fetchedAt,
 * raw sha256) appears it came from the network, later appearances from the
 * cache; a cache hit at a URL and offset already read is a duplicate avoided; a
 * network fetch of a URL already fetched is a duplicate the cache did not avoid.
 */
function classifyFetches(fetches: FetchRecord[]): Map<FetchRecord, FetchKind> {
  const pages = new Set<string>();
  const urls = new Set<string>();
  const reads = new Set<string>();
  const kinds = new Map<FetchRecord, FetchKind>();
  for (const f of [...fetches].sort((a, b) => a.position - b.position)) {
    const page = JSON.stringify([f.normalizedUrl, f.fetchedAt, f.rawSha256]);
    const read = JSON.stringify([f.normalizedUrl, f.offset]);
    kinds.set(f, pages.has(page) ? (reads.has(read) ? "duplicate" : "cache") : urls.has(f.normalizedUrl) ? "refetched" : "network");
    pages.add(page);
    urls.add(f.normalizedUrl);
    reads.add(read);
  }
  return kinds;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const minOf = (xs: (number | null)[]) => xs.reduce<number | null>((m, x) => (x === null ? m : m === null ? x : Math.min(m, x)), null);
const maxOf = (xs: (number | null)[]) => xs.reduce<number | null>((m, x) => (x === null ? m : m === null ? x : Math.max(m, x)), null);
