import type { EventData, ProfileBinding, RecordedEvent, TaskSpec } from "../../events/index.ts";
import { type ToolIntent, intentOf } from "../../events/toolIntent.ts";
import type { ToolEffect } from "../../tools/index.ts";
import type { AssistantBlock, Message, ToolResultBlock, ToolUseBlock, UserBlock } from "../../models/types.ts";
import { type QuotableBlob, extractCitationMarkers } from "../../handoff/index.ts";
import { reminderBlockBefore28 } from "../../events/textsBefore28.ts";

export type Role = EventData<"executor_admitted">["role"];

/** One tool use of the current turn, followed from request to result. */
export interface Call {
  toolUseId: string;
  name: string;
  input: unknown;
  /** requested: the model asked; called: intent recorded, effect under way; resolved: result known. */
  phase: "requested" | "called" | "resolved";
  childExecutorId?: string;
  /** The tool_called event: what the outcome was caused by. */
  intentEventId?: string;
  /** The effect class recorded with the intent (what recovery goes by). */
  effect?: ToolEffect;
  result?: ToolResultBlock;
}

export type Outcome =
  | { kind: "handoff"; handoff: Record<string, unknown>; forced: boolean; eventId: string; hash: string }
  | { kind: "answer"; answer: Record<string, unknown>; partial?: boolean }
  /** A Checker's verdicts on Main's answer (check_submitted); forced: stopped before it gave them. */
  | { kind: "check"; check: EventData<"check_submitted">; eventId: string }
  | { kind: "cancelled"; reason: string; eventId: string }
  | { kind: "failed"; reason: string; eventId: string };

/**
 * Everything an executor knows, as a fold of its own stream and nothing else.
 * Rebuilding after a crash is replaying the stream through `evolve`.
 */
export interface ExecutorState {
  executorId: string;
  runId: string;
  streamId: string;
  /** Stream version of the last folded event: the expected version of the next append. */
  version: number;
  lastEventId: string | null;
  role: Role;
  parentExecutorId: string | null;
  parentToolUseId: string | null;
  depth: number;
  task: TaskSpec;
  profile: ProfileBinding | null;
  grantedTools: string[];
  model: string;
  limits: EventData<"executor_admitted">["limits"];
  /** Main of a single-agent run: no delegate, and its answer carries its own evidence (actors/request/evidencedAnswer.ts). */
  singleAgent: boolean;
  /** Completed model turns of this executor (its own coordinate, never a run-global count). */
  turn: number;
  /** Failed model calls since the last completed turn. */
  failedAttempts: number;
  messages: Message[];
  /** The user message after a turn that ends without the terminal tool, as recorded at admission. */
  nudge: string;
  /** The current turn's tool uses, in the order the model gave them. */
  calls: Call[];
  toolCalls: number;
  /** Attempts spent repairing a rejected handoff or answer (including finishing without one). */
  repairs: number;
  /**
   * The model ended its turn without a tool call while background Children
   * work: it has nothing to do but wait, so the next step waits for a Child's
   * handoff rather than spending a turn. Cleared by the next turn or delivery.
   */
  idleForChildren: boolean;
  /** Successful tool results by tool_use id: what a handoff may cite. */
  toolResults: Record<string, { tool: string; eventId: string; quotable?: QuotableBlob[] }>;
  citationsSeen: string[];
  artifacts: Record<string, { path: string; sha256: string }>;
  /**
   * URLs this executor has seen and may fetch, as written: those in its task and the
   * `links` its own tool results showed (search hits, a page's links). Normalised only
   * when a fetch asks (reachableUrls.ts), so the fold stays a cheap append.
   */
  reachable: string[];
  /** Children admitted by this executor's delegate calls, by executor id; consumed once their result reached this executor. */
  children: Record<string, { toolUseId: string; consumed: boolean; handoff?: Record<string, unknown> }>;
  /** Deliveries (background handoffs) waiting for the next user message of the conversation. */
  inbox: UserBlock[];
  unknownEffects: string[];
  /** A limit refused a call: the executor finishes with what it has at its next decision. */
  stop: Stop | null;
  /** A request from outside that this executor stop (folded from cancel_requested). */
  cancelRequest: { reason: string; by: EventData<"cancelled">["by"]; scope: "run" | "executor" } | null;
  /** Reminders raised for this executor, by id; pending until a request the model answered carried them. */
  reminders: Record<string, { text: string; delivered: boolean }>;
  /** Reviews of this executor's findings, by review id. */
  reviews: Record<string, Review>;
  outcome: Outcome | null;
}

/** A review of this executor's findings; `delivered` once its result was recorded (advice shown, or shadow closed). */
export interface Review {
  mode: "shadow" | "advisory";
  reviewerExecutorId: string;
  subject: string;
  requestedAt: string;
  delivered: boolean;
}

/** Why an executor must finish with what it has: a named limit (from governance) or a reason. */
export interface Stop {
  limit: string | null;
  reason: string;
}


/** A delegate call whose Child works in the background (its call is answered at once). */
export const isBackgroundDelegation = (c: Call) => (c.input as { wait?: unknown } | null)?.wait === false;

export function admittedState(event: RecordedEvent<"executor_admitted">): ExecutorState {
  const d = event.data;
  return {
    executorId: event.metadata.executorId,
    runId: event.metadata.runId,
    streamId: event.streamId,
    version: event.streamVersion,
    lastEventId: event.eventId,
    role: d.role,
    parentExecutorId: d.parentExecutorId,
    parentToolUseId: d.parentToolUseId,
    depth: d.depth,
    task: d.task,
    profile: d.profile,
    grantedTools: d.grantedTools,
    model: d.model,
    limits: d.limits,
    turn: 0,
    failedAttempts: 0,
    singleAgent: d.singleAgent === true,
    // What the model is shown is read from the log, never rendered here (actors/request/renderTexts.ts rendered it).
    messages: [{ role: "user", content: d.rendered.task }],
    nudge: d.rendered.nudge,
    calls: [],
    toolCalls: 0,
    repairs: 0,
    idleForChildren: false,
    toolResults: {},
    citationsSeen: [],
    artifacts: {},
    reachable: d.rendered.reachable,
    children: {},
    inbox: [],
    unknownEffects: [],
    stop: null,
    cancelRequest: null,
    reminders: {},
    reviews: {},
    outcome: null,
  };
}

/**
 * A copy of the state at a new version, written out field by field in
 * admittedState's order: a spread here sees states of many hidden classes and
 * costs V8 its slow generic copy, which was most of the fold's time.
 */
function nextState(s: ExecutorState, version: number, lastEventId: string): ExecutorState {
  return {
    executorId: s.executorId,
    runId: s.runId,
    streamId: s.streamId,
    version,
    lastEventId,
    role: s.role,
    parentExecutorId: s.parentExecutorId,
    parentToolUseId: s.parentToolUseId,
    depth: s.depth,
    task: s.task,
    profile: s.profile,
    grantedTools: s.grantedTools,
    model: s.model,
    limits: s.limits,
    singleAgent: s.singleAgent,
    turn: s.turn,
    failedAttempts: s.failedAttempts,
    messages: s.messages,
    nudge: s.nudge,
    calls: s.calls,
    toolCalls: s.toolCalls,
    repairs: s.repairs,
    idleForChildren: s.idleForChildren,
    toolResults: s.toolResults,
    citationsSeen: s.citationsSeen,
    artifacts: s.artifacts,
    reachable: s.reachable,
    children: s.children,
    inbox: s.inbox,
    unknownEffects: s.unknownEffects,
    stop: s.stop,
    cancelRequest: s.cancelRequest,
    reminders: s.reminders,
    reviews: s.reviews,
    outcome: s.outcome,
  };
}

/** Folds one event into the state. Pure: the same stream always yields the same state. */
export function evolve(state: ExecutorState, event: RecordedEvent): ExecutorState {
  if (event.streamVersion !== state.version + 1) {
    throw new Error(`event ${event.eventId} has version ${event.streamVersion}, expected ${state.version + 1}`);
  }
  const s = nextState(state, event.streamVersion, event.eventId);
  switch (event.type) {
    case "turn": {
      const d = event.data;
      if (d.turn !== state.turn + 1) throw new Error(`turn ${d.turn} folded after turn ${state.turn} of ${state.executorId}`);
      const content = d.response.content as AssistantBlock[];
      const uses = content.filter((b): b is ToolUseBlock => b.type === "tool_use");
      s.turn = d.turn;
      s.failedAttempts = 0;
      s.idleForChildren = false;
      s.messages = [...state.messages, { role: "assistant", content }];
      // Every field present from the start (unset ones undefined): calls of one shape are copied
      // quickly by each step below; calls whose fields come and go cost V8's slow generic copy.
      s.calls = uses.map((u) => ({
        toolUseId: u.id,
        name: u.name,
        input: u.input,
        phase: "requested",
        childExecutorId: undefined,
        intentEventId: undefined,
        effect: undefined,
        result: undefined,
      }));
      // A server-side search's hits are URLs the executor has seen (discovery only: it fetches before it cites).
      for (const b of content) if (b.type === "web_search_tool_result" && Array.isArray(b.content)) s.reachable = [...s.reachable, ...b.content.map((r) => r.url)];
      // Anthropic paused a long server-side turn: the assistant message goes back as it is and the model carries on.
      if (uses.length === 0 && d.response.stopReason === "pause_turn") return s;
      if (uses.length === 0) {
        // Finishing without the terminal tool is a repair attempt; the nudge recorded at admission follows it.
        // Waiting for background Children is not: the runner waits for the next handoff instead.
        if (Object.values(state.children).some((c) => !c.consumed)) s.idleForChildren = true;
        else s.repairs = state.repairs + 1;
        s.messages.push({ role: "user", content: state.nudge });
      }
      return s;
    }
    case "turn_failed": {
      s.failedAttempts = state.failedAttempts + 1;
      // A call that cannot succeed, or one failure too many in a row, stops the executor with what it has.
      if (!state.stop && (!event.data.retryable || s.failedAttempts >= state.limits.maxFailedModelCalls)) {
        s.stop = { limit: null, reason: `model call failed ${s.failedAttempts} time(s): ${event.data.message}` };
      }
      return s;
    }
    case "tool_called":
      return called(state, s, intentOf(event)!);
    case "tool_completed": {
      const d = event.data;
      // A read-only call's intent may ride with its outcome: folded as the tool_called it stands for, then the outcome.
      if (d.intent) called(state, s, intentOf(event)!);
      const quotable = quotableBlobs(d);
      s.toolResults = withEntry(state.toolResults, d.toolUseId, quotable.length ? { tool: d.tool, eventId: event.eventId, quotable } : { tool: d.tool, eventId: event.eventId });
      // No marker without "[[": most outputs skip the scan.
      if (d.output.includes("[[")) s.citationsSeen = withNew(state.citationsSeen, extractCitationMarkers(d.output));
      if (d.artifacts.length) {
        s.artifacts = { ...state.artifacts, ...Object.fromEntries(d.artifacts.map((a) => [a.id, { path: a.path, sha256: a.sha256 }])) };
      }
      if (d.links?.length) s.reachable = [...state.reachable, ...d.links];
      return resolve(s, d.toolUseId, { type: "tool_result", tool_use_id: d.toolUseId, content: d.output });
    }
    case "tool_failed": {
      const d = event.data;
      if (d.intent) called(state, s, intentOf(event)!);
      if (d.reason === "rejected_result") s.repairs = state.repairs + 1;
      if (d.reason === "governance" && !state.stop) s.stop = { limit: d.limit ?? null, reason: d.message };
      s.children = answerChild(state, d.toolUseId);
      return resolve(s, d.toolUseId, { type: "tool_result", tool_use_id: d.toolUseId, content: d.message, is_error: true });
    }
    case "effect_unknown": {
      const d = event.data;
      s.unknownEffects = [...state.unknownEffects, d.toolUseId];
      s.children = answerChild(state, d.toolUseId);
      return resolve(s, d.toolUseId, { type: "tool_result", tool_use_id: d.toolUseId, content: d.note, is_error: true });
    }
    case "handoff_consumed": {
      const d = event.data;
      // A Child that ended without a handoff is one fact, foreground or background: its delegation failed.
      s.children = {
        ...state.children,
        [d.childExecutorId]: { toolUseId: d.toolUseId, consumed: true, ...(d.childEnded ? {} : { handoff: d.handoff }) },
      };
      if (!state.calls.some((c) => c.toolUseId === d.toolUseId)) {
        // A background Child: its delegate call was answered long ago; delivered with the next request.
        return deliver(s, { type: "text", text: shown(d.rendered?.text, "a text block", event) });
      }
      const content = shown(d.rendered?.result, "a tool result", event);
      return resolve(s, d.toolUseId, d.childEnded ? { type: "tool_result", tool_use_id: d.toolUseId, content, is_error: true } : { type: "tool_result", tool_use_id: d.toolUseId, content });
    }
    case "handoff_committed":
      s.outcome = { kind: "handoff", handoff: event.data.handoff, forced: event.data.forced, eventId: event.eventId, hash: event.hash };
      return s;
    case "check_submitted":
      s.outcome = { kind: "check", check: event.data, eventId: event.eventId };
      return s;
    case "settled":
      if (event.data.answer) s.outcome = { kind: "answer", answer: event.data.answer, ...(event.data.partial ? { partial: true } : {}) };
      return s;
    case "cancel_requested":
      if (!state.cancelRequest) s.cancelRequest = { reason: event.data.reason, by: event.data.by, scope: event.data.scope };
      return s;
    case "reminder_raised":
      return raiseReminder(s, event.data.reminderId, event.data.text);
    case "reminder_delivered":
      return deliverReminder(s, event.data.reminderId, event.data.rendered);
    case "review_requested": {
      const d = event.data;
      const requestedAt = new Date(event.recordedAt).toISOString();
      s.reviews = { ...state.reviews, [d.reviewId]: { mode: d.mode, reviewerExecutorId: d.reviewerExecutorId, subject: d.subject, requestedAt, delivered: false } };
      return s;
    }
    case "review_delivered":
      return deliverReview(s, event.data.reviewId, event.data.rendered);
    case "cancelled":
      s.outcome = { kind: "cancelled", reason: event.data.reason, eventId: event.eventId };
      return s;
    case "failed":
      s.outcome = { kind: "failed", reason: event.data.reason, eventId: event.eventId };
      return s;
    case "executor_admitted":
      throw new Error(`${state.executorId} was admitted twice`);
    default:
      // Budget and recovery facts do not change the conversation.
      return s;
  }
}

/** A fact raised for this executor, pending until a request carries it. Identical facts share a key upstream; an id seen twice is the same reminder. */
export function raiseReminder(s: ExecutorState, reminderId: string, text: string): ExecutorState {
  if (s.reminders[reminderId]) return s;
  return { ...s, reminders: { ...s.reminders, [reminderId]: { text, delivered: false } } };
}

/**
 * Puts a pending reminder in front of the model: its block as rendered when
 * it was delivered (a text block of its own, marked as the runtime's; null: a
 * delivery recorded before blocks were, rendered by the frozen template of the
 * time). Used by the fold and by the runner's preview of the request it is
 * about to send, so a rebuilt request matches the one sent.
 */
export function deliverReminder(s: ExecutorState, reminderId: string, block: string | null): ExecutorState {
  const reminder = s.reminders[reminderId];
  if (!reminder) throw new Error(`${s.executorId} has no reminder ${reminderId} to deliver`);
  if (reminder.delivered) throw new Error(`reminder ${reminderId} was already delivered to ${s.executorId}`);
  const next = { ...s, reminders: { ...s.reminders, [reminderId]: { ...reminder, delivered: true } } };
  return deliver(next, { type: "text", text: block ?? reminderBlockBefore28(reminder.text) });
}

/** Marks a review delivered; its advice block (advisory mode), as rendered when delivered, reaches the model once. */
export function deliverReview(s: ExecutorState, reviewId: string, block: string | undefined): ExecutorState {
  const review = s.reviews[reviewId];
  if (!review) throw new Error(`${s.executorId} has no review ${reviewId}`);
  if (review.delivered) throw new Error(`review ${reviewId} was already delivered to ${s.executorId}`);
  const next = { ...s, reviews: { ...s.reviews, [reviewId]: { ...review, delivered: true } } };
  return block === undefined ? next : deliver(next, { type: "text", text: block });
}

/** The block a consumed Child's result was recorded with, in the form its delegation's mode asks for. */
function shown(block: string | undefined, what: string, event: RecordedEvent): string {
  if (block === undefined) throw new Error(`${event.type} (v${event.streamVersion}) of ${event.metadata.executorId} records no block as ${what}, the form its delegation was answered in`);
  return block;
}

/** `seen` (no duplicates) followed by the items of `found` it lacks, in order, once each; `seen` itself when none is new. */
function withNew(seen: string[], found: readonly string[]): string[] {
  if (found.length === 0) return seen;
  const all = new Set([...seen, ...found]);
  return all.size === seen.length ? seen : [...all];
}

/** A delegate call answered with an error: its Child's result will not be delivered any more. */
function answerChild(state: ExecutorState, toolUseId: string): ExecutorState["children"] {
  const entry = Object.entries(state.children).find(([, c]) => c.toolUseId === toolUseId);
  return entry ? { ...state.children, [entry[0]]: { ...entry[1], consumed: true } } : state.children;
}

/** Records an intent in `s`, evolve's own fresh copy: the call is under way (called), counted, and a delegation's Child known. */
function called(state: ExecutorState, s: ExecutorState, intent: ToolIntent): ExecutorState {
  s.toolCalls = state.toolCalls + 1;
  s.calls = updateCall(state, intent.toolUseId, (c) => ({
    ...c,
    phase: "called",
    childExecutorId: intent.childExecutorId,
    intentEventId: intent.eventId,
    effect: intent.effect,
  }));
  if (intent.childExecutorId) {
    s.children = { ...state.children, [intent.childExecutorId]: { toolUseId: intent.toolUseId, consumed: false } };
  }
  return s;
}

function updateCall(state: ExecutorState, toolUseId: string, change: (c: Call) => Call): Call[] {
  if (!state.calls.some((c) => c.toolUseId === toolUseId)) {
    throw new Error(`${state.executorId} has no open tool use ${toolUseId}`);
  }
  return state.calls.map((c) => (c.toolUseId === toolUseId ? change(c) : c));
}

/**
 * Records a result in `s`, evolve's own fresh copy (so it is changed in place,
 * keeping nextState's shape); when the turn's last call resolves, the results
 * (and any deliveries) become the next user message.
 */
function resolve(s: ExecutorState, toolUseId: string, result: ToolResultBlock): ExecutorState {
  const calls = updateCall(s, toolUseId, (c) => ({ ...c, phase: "resolved", result }));
  if (calls.every((c) => c.phase === "resolved")) {
    const content: UserBlock[] = [...calls.map((c) => c.result!), ...s.inbox];
    s.calls = [];
    s.inbox = [];
    s.messages = [...s.messages, { role: "user", content }];
    return s;
  }
  s.calls = calls;
  return s;
}

/**
 * Puts a block in front of the model with its next request: appended to the
 * pending user message when the conversation waits on the model, otherwise held
 * until the current turn's tool results are complete.
 */
function deliver(s: ExecutorState, block: UserBlock): ExecutorState {
  const last = s.messages.at(-1);
  if (s.calls.length > 0 || last?.role !== "user") return { ...s, inbox: [...s.inbox, block] };
  const content: UserBlock[] = typeof last.content === "string" ? [{ type: "text", text: last.content }, block] : [...last.content, block];
  return { ...s, messages: [...s.messages.slice(0, -1), { role: "user", content }], idleForChildren: false };
}

/**
 * A copy of `record` with one more entry. Tool use ids are fresh keys, so each
 * record has a hidden class of its own and a spread copies it slowly; a
 * dictionary filled by a loop is the cheaper copy at every size seen.
 */
function withEntry<V>(record: Record<string, V>, key: string, value: V): Record<string, V> {
  const copy: Record<string, V> = {};
  for (const k in record) copy[k] = record[k];
  copy[key] = value;
  return copy;
}

/**
 * What a quote citing this call may come from: the text of each source it read, then each artifact it wrote, once each.
 * Never a search result list: search is discovery only, so a quote of a snippet is found in no source and refused.
 */
function quotableBlobs(d: EventData<"tool_completed">): QuotableBlob[] {
  if (!d.sources?.length && d.artifacts.length === 0) return [];
  const blobs = [
    ...(d.sources ?? []).filter((src) => src.kind !== "search_results").map((src) => ({ sha256: src.textSha256, label: `source ${src.url}` })),
    ...d.artifacts.map((a) => ({ sha256: a.sha256, label: `artifact ${a.path}` })),
  ];
  return blobs.filter((b, i) => blobs.findIndex((x) => x.sha256 === b.sha256) === i);
}
