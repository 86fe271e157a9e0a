import type { Draft } from "../../events/index.ts";
import { isModelCallError } from "../../models/modelCallError.ts";
import type { ModelRequest, ModelResponse } from "../../models/types.ts";
import type { ServerSearch } from "../../tools/index.ts";
import { type Call, type ExecutorState, type Outcome, deliverReminder, deliverReview, raiseReminder } from "../fold/executorState.ts";
import { renderReview } from "./review.ts";
import { renderAdviceBlock, renderReminderBlock } from "../request/renderTexts.ts";

/** The state a turn's request is built from (the state with this turn's deliveries applied), and the deliveries. */
export interface TurnPreview {
  preview: ExecutorState;
  deliveries: Draft[];
}

/**
 * What the next request carries besides the conversation: reminders not yet
 * shown, and the reviews whose Reviewer has finished (`reviews`, by review id;
 * null while it works). Advisory advice reaches the model once; a shadow
 * review is closed without reaching it. The preview is the state as the fold
 * will have it once the deliveries are recorded with the turn, so a rebuilt
 * request matches the one sent.
 */
export function previewTurn(s: ExecutorState, reviews: Readonly<Record<string, Outcome | null>>): TurnPreview {
  const turn = s.turn + 1;
  const deliveries: Draft[] = Object.entries(s.reminders)
    .filter(([, r]) => !r.delivered)
    .map(([reminderId, r]) => ({ type: "reminder_delivered", data: { reminderId, turn, rendered: renderReminderBlock(r.text) } }));
  for (const [reviewId, review] of Object.entries(s.reviews)) {
    const outcome = reviews[reviewId];
    if (review.delivered || !outcome) continue;
    if (review.mode === "shadow") deliveries.push({ type: "review_delivered", data: { reviewId, delivered: false, turn: null } });
    else {
      const advice = renderReview(outcome);
      deliveries.push({ type: "review_delivered", data: { reviewId, delivered: true, turn, advice, rendered: renderAdviceBlock(advice) } });
    }
  }
  return { preview: deliveries.reduce(applyDelivery, s), deliveries };
}

function applyDelivery(state: ExecutorState, d: Draft): ExecutorState {
  if (d.type === "reminder_delivered") return deliverReminder(state, d.data.reminderId, d.data.rendered);
  if (d.type === "review_delivered") return deliverReview(state, d.data.reviewId, d.data.rendered);
  return state;
}

/**
 * Reminders governance raised for this call go into this call's request (its
 * reservation counted them), so a Main that answers now has seen them; they
 * are recorded delivered with this turn. The same preview when none is new.
 */
export function withRaisedReminders(turn: TurnPreview, governed: readonly Draft[]): TurnPreview {
  let { preview } = turn;
  const deliveries = [...turn.deliveries];
  for (const e of governed) {
    if (e.type !== "reminder_raised" || preview.reminders[e.data.reminderId]) continue;
    const rendered = renderReminderBlock(e.data.text);
    preview = deliverReminder(raiseReminder(preview, e.data.reminderId, e.data.text), e.data.reminderId, rendered);
    deliveries.push({ type: "reminder_delivered", data: { reminderId: e.data.reminderId, turn: preview.turn + 1, rendered } });
  }
  return preview === turn.preview ? turn : { preview, deliveries };
}

/** The tool uses of a model response, as calls the turn will decide. */
export function toolUsesOf(response: Pick<ModelResponse, "content">): Call[] {
  return response.content
    .filter((b) => b.type === "tool_use")
    .map((b): Call => ({ toolUseId: b.id, name: b.name, input: b.input, phase: "requested" }));
}

/** A model call that answered, with what was decided around it. */
export interface Answered {
  /** What governance recorded before the call (reservation, reminders raised). */
  governed: readonly Draft[];
  deliveries: readonly Draft[];
  request: ModelRequest;
  /** sha256 of the request's canonical text, recorded with the turn (the text itself is not kept through the call). */
  digest: string;
  response: ModelResponse;
  provider: string;
  latencyMs: number;
  /** The turn's tool uses, decided (decideCalls). */
  decisions: readonly Draft[];
  /** Governance's settlement of the call's usage. */
  settlement: readonly Draft[];
  /** The server-side searches the response holds, their result lists stored (tools/web/serverSearches.ts). */
  searches?: readonly ServerSearch[];
}

/**
 * A turn is one append: what governance recorded, the deliveries its request
 * carried, the turn (request digest, response, usage), the decisions on its
 * tool uses and the settlement. Intents are recorded before any effect.
 */
export function turnRecorded(s: ExecutorState, a: Answered): Draft[] {
  const { request, response } = a;
  return [
    ...a.governed,
    ...a.deliveries,
    {
      type: "turn",
      data: {
        turn: s.turn + 1,
        request: { model: request.model, messageCount: request.messages.length, toolNames: request.tools.map((t) => t.name), digest: a.digest },
        response: { content: response.content, stopReason: response.stopReason },
        usage: response.usage,
        model: response.model,
        ...(response.responseId && { responseId: response.responseId }),
        provider: a.provider,
        scripted: response.scripted,
        latencyMs: a.latencyMs,
        ...(response.sanitized && { sanitized: response.sanitized }),
        ...(a.searches?.length && { searches: [...a.searches] }),
      },
    },
    ...a.decisions,
    ...a.settlement,
  ];
}

/** A model call that failed (or was aborted): nothing was delivered. */
export interface Failed {
  governed: readonly Draft[];
  settlement: readonly Draft[];
  error: unknown;
  /** A cancel aborted it: the executor stops; no failed turn is counted. */
  cancelled: boolean;
}

/** A failed model call is `turn_failed` (kind, attempt, whether a retry may help) with its reservation settled; a cancelled one only settles. */
export function turnFailed(s: ExecutorState, f: Failed): Draft[] {
  if (f.cancelled) return [...f.governed, ...f.settlement];
  const { error } = f;
  return [
    ...f.governed,
    {
      type: "turn_failed",
      data: {
        turn: s.turn + 1,
        attempt: s.failedAttempts + 1,
        kind: isModelCallError(error) ? error.kind : "error",
        message: (error as Error)?.message ?? String(error),
        retryable: isModelCallError(error) ? error.retryable : false,
      },
    },
    ...f.settlement,
  ];
}
