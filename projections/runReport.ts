import type { RecordedEvent } from "../events/index.ts";
import { intentOf } from "../events/toolIntent.ts";
import { priceOf, usageCostMicros } from "../governance/prices.ts";
import { type Projection, executorStreamOf, fieldsOf, numberOr } from "./projection.ts";

/** One completed web_fetch: what page it read, at which offset, and where it sits in the log. */
export interface FetchRecord {
  position: number;
  normalizedUrl: string;
  /** A page fetched once and served again from the run's page cache keeps its fetchedAt and raw sha256. */
  fetchedAt: string;
  rawSha256: string;
  offset: number;
  /** Size of the raw bytes (absent in a source recorded without it). */
  bytes?: number;
}

/** What one executor's stream says about its spending. */
export interface ExecutorTally {
  role: string | null;
  parentExecutorId: string | null;
  depth: number;
  profile: string | null;
  model: string | null;
  admittedPosition: number;
  /** Epoch ms of its first and last events. */
  firstAt: number | null;
  lastAt: number | null;
  limits: { maxTurns: number | null; maxToolCalls: number | null };
  turns: number;
  /** Turns whose tokens the scripted model estimated (four characters a token). */
  estimatedTurns: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * Cache tokens, when a turn recorded them (`usage.cacheReadInputTokens`, `cacheCreationInputTokens`); null while none
   * did. The catalogue's turn usage holds neither yet (models/fromAnthropicMessage.ts keeps input and output only).
   */
  cacheReadTokens: number | null;
  /** Server-side web searches its turns ran (usage.webSearchRequests). */
  webSearches: number;
  cacheWriteTokens: number | null;
  /** Its largest request's input tokens: the context it worked in at its widest. */
  peakInputTokens: number;
  costMicros: number;
  modelLatencyMs: number;
  toolCalls: number;
  children: number;
  /** Settled by governance (failed and refused calls included), what its token and cost limits count. */
  settledTokens: number;
  settledCostMicros: number;
  /** web_fetch inputs by tool use id, until their outcome; then the fetch. */
  fetchOffsets: Record<string, number>;
  fetches: FetchRecord[];
}

export interface RunReportState {
  mainExecutorId: string | null;
  question: string | null;
  /** Made as a single agent (`--single-agent`: run_submitted options, or Main's admission). */
  singleAgent: boolean;
  /** The caps recorded with the run (run_submitted options.caps); null when the log has none. */
  caps: Record<string, Record<string, unknown>> | null;
  /** Stretches without a host (run_resumed), epoch ms. */
  downtimes: { since: number; until: number }[];
  executors: Record<string, ExecutorTally>;
}

const emptyTally = (): ExecutorTally => ({
  role: null,
  parentExecutorId: null,
  depth: 0,
  profile: null,
  model: null,
  admittedPosition: 0,
  firstAt: null,
  lastAt: null,
  limits: { maxTurns: null, maxToolCalls: null },
  turns: 0,
  estimatedTurns: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: null,
  webSearches: 0,
  cacheWriteTokens: null,
  peakInputTokens: 0,
  costMicros: 0,
  modelLatencyMs: 0,
  toolCalls: 0,
  children: 0,
  settledTokens: 0,
  settledCostMicros: 0,
  fetchOffsets: {},
  fetches: [],
});

const numberOrNull = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const addCache = (sum: number | null, v: unknown): number | null => (numberOrNull(v) === null ? sum : (sum ?? 0) + (v as number));

/**
 * The run report's fold: per executor, turns, tokens, priced cost, model time,
 * tool calls, fetches and what its limits count; per run, the caps recorded
 * with it and the time it had no host. Each executor's tally comes from its own
 * stream, so stream order does not matter; fetches keep their log position and
 * are classified (network, cache, duplicate) when the report is read.
 */
export const runReport: Projection<RunReportState> = {
  name: "run-report",
  initial: () => ({ mainExecutorId: null, question: null, singleAgent: false, caps: null, downtimes: [], executors: {} }),
  evolve(state, event) {
    const d = fieldsOf(event);
    const executorId = executorStreamOf(event);
    if (!executorId) {
      if (event.type === "run_submitted") {
        const { caps, singleAgent } = (d.options ?? {}) as { caps?: unknown; singleAgent?: unknown };
        return { ...state, question: String(d.question), singleAgent: state.singleAgent || singleAgent === true, mainExecutorId: state.mainExecutorId ?? event.metadata.executorId, caps: caps && typeof caps === "object" ? (caps as RunReportState["caps"]) : null };
      }
      if (event.type === "run_resumed") {
        const since = Date.parse(String(d.downSince));
        const until = event.recordedAt.getTime();
        return Number.isFinite(since) && until > since ? { ...state, downtimes: [...state.downtimes, { since, until }] } : state;
      }
      return state;
    }
    const before = state.executors[executorId] ?? emptyTally();
    const at = event.recordedAt.getTime();
    const t = { ...before, firstAt: before.firstAt === null ? at : Math.min(before.firstAt, at), lastAt: before.lastAt === null ? at : Math.max(before.lastAt, at) };
    const next = tallyOf(t, event, d);
    const main = event.type === "executor_admitted" && d.role === "main" ? executorId : state.mainExecutorId;
    const singleAgent = state.singleAgent || (event.type === "executor_admitted" && d.singleAgent === true);
    return { ...state, mainExecutorId: main, singleAgent, executors: { ...state.executors, [executorId]: next } };
  },
};

/** A tool call's intent, counted (and a fetch's offset kept for its outcome). */
function called(t: ExecutorTally, d: Record<string, unknown>): ExecutorTally {
  const counted = { ...t, toolCalls: t.toolCalls + 1, children: t.children + (d.tool === "delegate" ? 1 : 0) };
  if (d.tool !== "web_fetch") return counted;
  const offset = numberOr((d.input as { offset?: unknown } | null)?.offset, 0);
  return { ...counted, fetchOffsets: { ...t.fetchOffsets, [String(d.toolUseId)]: offset } };
}

function tallyOf(t: ExecutorTally, event: RecordedEvent, d: Record<string, unknown>): ExecutorTally {
  switch (event.type as string) {
    case "executor_admitted": {
      const limits = (d.limits ?? {}) as Record<string, unknown>;
      const profile = d.profile as { id?: string } | null;
      return {
        ...t,
        role: String(d.role),
        parentExecutorId: (d.parentExecutorId as string | null) ?? null,
        depth: numberOr(d.depth, 0),
        profile: profile?.id ?? null,
        model: typeof d.model === "string" ? d.model : null,
        admittedPosition: event.globalPosition,
        limits: { maxTurns: numberOrNull(limits.maxTurns), maxToolCalls: numberOrNull(limits.maxToolCalls) },
      };
    }
    case "turn": {
      const turn = (event as RecordedEvent<"turn">).data;
      const usage = turn.usage as typeof turn.usage & Record<string, unknown>;
      return {
        ...t,
        turns: t.turns + 1,
        estimatedTurns: t.estimatedTurns + (turn.scripted ? 1 : 0),
        inputTokens: t.inputTokens + usage.inputTokens,
        outputTokens: t.outputTokens + usage.outputTokens,
        cacheReadTokens: addCache(t.cacheReadTokens, usage.cacheReadInputTokens),
        cacheWriteTokens: addCache(t.cacheWriteTokens, usage.cacheCreationInputTokens),
        webSearches: t.webSearches + numberOr(usage.webSearchRequests, 0),
        peakInputTokens: Math.max(t.peakInputTokens, usage.inputTokens),
        costMicros: t.costMicros + usageCostMicros(priceOf(turn.model), usage),
        modelLatencyMs: t.modelLatencyMs + turn.latencyMs,
      };
    }
    case "tool_called":
      return called(t, d);
    case "tool_completed": {
      // A read-only call in one row: its intent is counted here.
      if (d.intent) t = called(t, intentOf(event)!);
      if (d.tool !== "web_fetch") return t;
      const done = (event as RecordedEvent<"tool_completed">).data;
      const fetched = done.sources.map(
        (s): FetchRecord => ({ position: event.globalPosition, normalizedUrl: s.normalizedUrl ?? s.url, fetchedAt: s.fetchedAt, rawSha256: s.rawSha256, offset: t.fetchOffsets[done.toolUseId] ?? 0, bytes: s.bytes }),
      );
      return { ...t, fetches: [...t.fetches, ...fetched] };
    }
    case "tool_failed":
      return d.intent ? called(t, intentOf(event)!) : t;
    case "budget_settled": {
      const actual = (d.actual ?? {}) as Record<string, unknown>;
      return { ...t, settledTokens: t.settledTokens + numberOr(actual.tokens, 0), settledCostMicros: t.settledCostMicros + numberOr(actual.costMicros, 0) };
    }
    default:
      return t;
  }
}
