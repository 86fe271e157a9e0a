import type { Draft, NewEvent } from "../events/index.ts";
import { checkedAhead } from "../events/validateEvents.ts";

/**
 * A read-only call's intent is held rather than appended with its turn: if
 * its outcome comes before this executor must append anything else, the two
 * are appended as one row (the outcome carrying the intent, under the
 * intent's id). A crash before that append loses both: the turn's tool use is
 * decided and run again on recovery, which a read-only call allows, and it is
 * recorded once, by the run that finishes. A call that may change something
 * (idempotent, effectful, a delegation) keeps its intent before its effect.
 */
export function isHeldIntent(d: Draft): boolean {
  return d.type === "tool_called" && d.data.effect === "read_only" && d.data.childExecutorId === undefined;
}

/**
 * The held events with a read-only call's outcome added: merged into its
 * intent when the intent is still held and not being sent (one row), or
 * after the others (its intent was appended first, because something else had
 * to be). The merged row keeps the intent's id and causation, so the call's
 * idempotency key and everything caused by it stay what they were.
 */
export function withHeldOutcome(held: readonly NewEvent[], outcome: NewEvent, sending: readonly NewEvent[]): NewEvent[] {
  const at = held.findIndex((e) => e.type === "tool_called" && e.data.toolUseId === outcomeToolUseId(outcome) && !sending.includes(e));
  const intent = held[at];
  if (!intent || intent.type !== "tool_called" || (outcome.type !== "tool_completed" && outcome.type !== "tool_failed")) return [...held, ...checkedAhead([outcome])];
  const { turn, input } = intent.data;
  const merged = { type: outcome.type, data: { ...outcome.data, intent: { turn, input, effect: "read_only" } }, metadata: intent.metadata, eventId: intent.eventId } as NewEvent;
  // Validated once, as the row it will be (events already held keep their identity: an append under way names them).
  return [...held.slice(0, at), ...checkedAhead([merged]), ...held.slice(at + 1)];
}

/**
 * A batch of drafts as the executor appends it: read-only intents held to
 * ride with their outcomes (`later`, held after what is appended now), outcomes
 * that join an intent still held (`joining`: committed now, as one row with
 * it), and the rest, appended now.
 */
export function sortDrafts(held: readonly NewEvent[], drafts: readonly Draft[]): { now: readonly Draft[]; later: Draft[]; joining: Draft[] } {
  const later = drafts.filter(isHeldIntent);
  const joining = held.length ? drafts.filter((d) => isOutcomeOf(held, d)) : [];
  if (later.length === 0 && joining.length === 0) return { now: drafts, later, joining };
  return { now: drafts.filter((d) => !later.includes(d) && !joining.includes(d)), later, joining };
}

/** An outcome whose read-only intent is among the held events: it can still ride with it. */
export function isOutcomeOf(held: readonly NewEvent[], d: Draft): boolean {
  return (d.type === "tool_completed" || d.type === "tool_failed") && held.some((e) => e.type === "tool_called" && e.data.toolUseId === d.data.toolUseId);
}

const outcomeToolUseId = (e: NewEvent): string | undefined => ("toolUseId" in e.data ? (e.data.toolUseId as string) : undefined);
