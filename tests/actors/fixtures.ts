import type { EventData, EventStore, EventType, RecordedEvent } from "../../events/index.ts";
import assert from "node:assert/strict";
import { type Answer, type Outcome, type RuntimeOptions, Runtime } from "../../actors/index.ts";
import type { DelegateInput } from "../../actors/request/delegation.ts";
import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../../models/index.ts";
import type { Message, ModelRequest } from "../../models/types.ts";
import { exchanges, resultsOf } from "../../scenarios/requestView.ts";
import { ToolRegistry, createCorpusTools } from "../../tools/index.ts";
import { executorStreamId } from "../../events/index.ts";
import { findMainExecutorId } from "../../events/runStreams.ts";
import { cancelRequest } from "../../actors/decide/cancel.ts";
import type { PostResult } from "../../actors/postToExecutor.ts";
import { renderAdmission } from "../../actors/request/renderTexts.ts";

export const corpusRegistry = () => new ToolRegistry().register(...createCorpusTools());

/** A Runtime over `store` with the corpus tools and the given models; everything else overridable. */
export function runtimeWith(
  store: EventStore,
  models: RuntimeOptions["models"],
  options: Partial<RuntimeOptions> = {},
): Runtime {
  return new Runtime({
    store,
    models,
    modelNames: { main: "test-main", child: "test-child" },
    tools: corpusRegistry(),
    ...options,
  });
}

/** The answer Main settled with; fails the test when the run ended otherwise. */
export function answerOf(outcome: Outcome): Answer {
  assert.equal(outcome.kind, "answer", `the run ended with ${JSON.stringify(outcome)}`);
  return (outcome as Extract<Outcome, { kind: "answer" }>).answer as Answer;
}

export const streamOf = (store: EventStore, executorId: string) => store.readStream(executorStreamId(executorId));

/** Ids of the executors admitted as children of `parentId`, in admission order. */
export function childrenOf(events: readonly RecordedEvent[], parentId: string): string[] {
  return events
    .filter((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted" && e.data.parentExecutorId === parentId)
    .map((e) => e.metadata.executorId);
}

export function ofType<T extends EventType>(events: readonly RecordedEvent[], type: T): RecordedEvent<T>[] {
  return events.filter((e) => e.type === type) as RecordedEvent<T>[];
}

/**
 * The demo corpus tools a research profile's Child used before profiles asked for the research tools
 * (web, documents, workspace, compute), which these runtimes do not host: a delegation names them.
 */
const CORPUS_TOOLS_OF: Record<string, string[]> = {
  "web-explorer": ["search_corpus", "read_document", "quote_passage"],
  "document-reader": ["read_document", "quote_passage", "search_corpus"],
  "compute-analyst": ["read_document", "compute_overlap", "search_corpus", "quote_passage"],
};

/** A delegation as Main writes it; only the question is required here. */
export function delegation(question: string, profile = "web-explorer", extra: Partial<DelegateInput> = {}): DelegateInput {
  const tools = CORPUS_TOOLS_OF[profile];
  return { question, context: `Context for: ${question}`, done_when: "The question is answered with evidence.", profile, ...(tools && { tools }), ...extra };
}

/**
 * A scripted Main: on each turn it delegates the next batch of `batches` (all
 * delegations of a batch in one turn, so they run in parallel), then answers,
 * citing every finding it received as observed and noting empty handoffs as
 * not collected.
 */
export function delegatingMain(...batches: DelegateInput[][]): ScriptPolicy {
  return (request) => {
    const done = exchanges(request).filter((x) => x.use.name === "delegate").length;
    let offset = 0;
    for (const batch of batches) {
      if (done === offset) return { content: batch.map((input) => ({ type: "tool_use" as const, name: "delegate", input })) };
      offset += batch.length;
    }
    return answerFromHandoffs(request);
  };
}

interface Consumed {
  child_executor_id: string;
  handoff: { summary: string; findings: { claim: string }[] };
}

/** Handoffs in the request: delegate results, and background handoffs delivered as text. */
export function handoffsIn(request: ModelRequest): Consumed[] {
  const background = request.messages.flatMap((m) =>
    m.role === "user" && Array.isArray(m.content)
      ? m.content.flatMap((b) => (b.type === "text" && b.text.startsWith("Handoff from background Child") ? [b.text.slice(b.text.indexOf("\n") + 1)] : []))
      : [],
  );
  return [...resultsOf(request, "delegate").map((r) => r.output), ...background]
    .map((text) => JSON.parse(text) as Partial<Consumed>)
    .filter((c): c is Consumed => c.handoff !== undefined);
}

function answerFromHandoffs(request: ModelRequest): ScriptedReply {
  const handoffs = handoffsIn(request);
  const claims = handoffs.flatMap((h) =>
    h.handoff.findings.length
      ? h.handoff.findings.map((f, i) => ({ text: f.claim, basis: "observed", citations: [{ executor: h.child_executor_id, finding: i }] }))
      : [{ text: `Nothing usable came back: ${h.handoff.summary}`, basis: "not_collected", citations: [] }],
  );
  return {
    content: [
      {
        type: "tool_use",
        name: "answer",
        input: {
          summary: "(scripted) What the Children found.",
          sections: [{ heading: "Findings", claims: claims.length ? claims : [{ text: "No handoff arrived.", basis: "not_collected", citations: [] }] }],
        },
      },
    ],
  };
}

/** A valid handoff input; `findings` may cite what the Child really did. */
export function handoffInput(summary: string, findings: unknown[] = [], extra: Record<string, unknown> = {}) {
  return {
    summary,
    findings,
    measurementBasis: { sources: [], dates: [], units: [], scope: "test" },
    artifacts: [],
    gaps: findings.length ? [] : ["Nothing was looked up."],
    executionState: findings.length ? "completed" : "not_executed",
    confidence: findings.length ? "medium" : "low",
    caveats: [],
    ...extra,
  };
}

export const handoffReply = (input: unknown): ScriptedReply => ({ content: [{ type: "tool_use", name: "handoff", input }] });
export const useReply = (name: string, input: unknown): ScriptedReply => ({ content: [{ type: "tool_use", name, input }] });

/** A scripted model for both roles that never answers: the process "stops" during this call. */
export function stalledModel(onCall: (request: ModelRequest) => void = () => {}): ScriptedModel {
  return new ScriptedModel({
    name: "stalled",
    policy: (request) => {
      onCall(request);
      return new Promise<never>(() => {});
    },
  });
}

/** The first user message of a request, as text. */
export function firstMessageText(request: { messages: Message[] }): string {
  const first = request.messages[0];
  if (first.role !== "user") throw new Error("a request starts with a user message");
  return typeof first.content === "string" ? first.content : first.content.map((b) => (b.type === "text" ? b.text : b.content)).join("\n");
}

/** Every piece of text a request carries to the model, tool inputs included. */
export function textsOf(request: ModelRequest): string[] {
  return [
    request.system,
    ...request.messages.flatMap((m): string[] => {
      if (typeof m.content === "string") return [m.content];
      return m.content.map((b) =>
        b.type === "text" ? b.text : b.type === "tool_use" || b.type === "server_tool_use" ? JSON.stringify(b.input) : b.type === "tool_result" ? b.content : JSON.stringify(b.content),
      );
    }),
  ];
}

/** A promise with its opener, to order executors' steps without timing. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Settles like `promise`, or rejects after `ms`: a hang fails the test instead of stalling it. */
export function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Resolves once `predicate` holds, polling every few milliseconds; rejects after `ms`. */
export async function eventually(predicate: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const ZERO_HASH = "0".repeat(64);

/**
 * A recorded event built in memory, for pure tests of the fold. Hashes and
 * positions are placeholders: the fold reads versions, types and data.
 */
export function recorded<T extends EventType>(
  executorId: string,
  streamVersion: number,
  type: T,
  data: EventData<T>,
  globalPosition = streamVersion,
): RecordedEvent<T> {
  return {
    type,
    data,
    schemaVersion: 1,
    eventId: `${executorId}-ev-${streamVersion}`,
    streamId: executorStreamId(executorId),
    streamVersion,
    globalPosition,
    recordedAt: new Date("2026-01-01T00:00:00.000Z"),
    metadata: { runId: "run-pure", executorId, causationId: null, correlationId: "run-pure" },
    prevHash: ZERO_HASH,
    hash: ZERO_HASH,
  } as RecordedEvent<T>;
}

export function admittedData(role: "main" | "child", overrides: Partial<EventData<"executor_admitted">> = {}): EventData<"executor_admitted"> {
  const data = {
    role,
    parentExecutorId: role === "main" ? null : "main-pure",
    parentToolUseId: role === "main" ? null : "toolu_parent",
    depth: role === "main" ? 0 : 1,
    task: { question: "What is ADIV's ongoing charge?", context: "", doneWhen: "" },
    profile: null,
    grantedTools: ["search_corpus"],
    refusedTools: [],
    model: "test-model",
    limits: { maxTurns: 12, maxToolCalls: 25, maxHandoffRepairs: 2, maxFailedModelCalls: 3 },
    ...overrides,
  };
  // What admission records of what the model will be shown, rendered as admission renders it.
  return { ...renderAdmission(data), ...data, offered: data.offered ?? null };
}

/** A turn whose reply is text only, numbered `turn`. */
export function textTurn(turn: number, text = "thinking"): EventData<"turn"> {
  return {
    turn,
    request: { model: "test-model", messageCount: 1, toolNames: ["search_corpus", "handoff"], digest: ZERO_HASH },
    response: { content: [{ type: "text", text }], stopReason: "end_turn" },
    usage: { inputTokens: 10, outputTokens: 2 },
    model: "scripted:test",
    provider: "scripted",
    scripted: true,
    latencyMs: 0,
  };
}

/**
 * A cancel as `ariadne cancel` posts it to a live host (runs/cancelRun.ts):
 * `cancel_requested` in the target's inbox, Main's for the whole run, the
 * runner of this process poked so what is in flight is aborted now.
 */
export async function requestCancel(runtime: Runtime, request: { runId: string; executorId?: string; reason: string; by: "operator" }): Promise<PostResult> {
  const target = request.executorId ?? (await findMainExecutorId(runtime.store.database, request.runId));
  if (!target) throw new Error(`no run ${request.runId} in the log`);
  return runtime.post(target, [cancelRequest(request.reason, request.by, request.executorId ? "executor" : "run")]);
}
