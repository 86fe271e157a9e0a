import { DELEGATE_TOOL, type ToolEffect } from "../../tools/index.ts";
import type { Call, ExecutorState } from "../fold/executorState.ts";
import type { Draft } from "./draft.ts";

const RANK: Record<ToolEffect, number> = { read_only: 0, idempotent: 1, effectful: 2 };

/**
 * After a rebuild, a tool call whose intent was recorded but whose outcome never
 * was is resolved by its effect class (the stricter of the one recorded with the
 * intent and the host's tool): a `read_only` or `idempotent` call is run again
 * (no event here: the loop starts every intent this process has not started, an
 * idempotent one with the same key as before, idempotencyKeyOf); an `effectful`
 * call is marked unknown, told to the model and never run again. A delegate call
 * is neither: it re-attaches to its Child, whose own stream knows how far it got.
 * `recovered` says which calls were run again and which became unknown.
 */
export function decideRecovery(s: ExecutorState, effectOf: (tool: string) => ToolEffect): Draft[] {
  const inFlight = s.calls.filter((c) => c.phase === "called" && c.name !== DELEGATE_TOOL);
  if (inFlight.length === 0) return [];
  const effect = (c: Call): ToolEffect => {
    const host = effectOf(c.name);
    return c.effect && RANK[c.effect] > RANK[host] ? c.effect : host;
  };
  const unknown = inFlight.filter((c) => effect(c) === "effectful");
  const rerun = inFlight.filter((c) => effect(c) !== "effectful");
  return [
    ...unknown.map(
      (c): Draft => ({
        type: "effect_unknown",
        data: {
          toolUseId: c.toolUseId,
          tool: c.name,
          effect: "effectful",
          note: `The outcome of ${c.name} (${c.toolUseId}) was never recorded: the process stopped while it ran. It was not run again; check its effect before relying on it.`,
        },
        causationId: c.intentEventId,
      }),
    ),
    {
      type: "recovered",
      data: { fromVersion: s.version, unknownEffects: unknown.map((c) => c.toolUseId), rerun: rerun.map((c) => c.toolUseId) },
    },
  ];
}

/**
 * The idempotency key a tool call carries: its intent's event id, the same on
 * the first run and on every re-run after a crash (a call with no recorded
 * intent cannot run).
 */
export function idempotencyKeyOf(call: Call): string {
  if (!call.intentEventId) throw new Error(`call ${call.toolUseId} has no recorded intent: it cannot run`);
  return call.intentEventId;
}
