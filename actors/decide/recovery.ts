import { DELEGATE_TOOL, type ToolEffect } from "../../tools/index.ts";
import type { ExecutorState } from "../executorState.ts";
import type { Draft } from "./draft.ts";

/**
 * After a rebuild: a tool call whose intent was recorded but whose outcome
 * never was is marked unknown and never run again. A delegate call is not: it
 * re-attaches to its Child, whose own stream knows how far it got.
 */
export function decideRecovery(s: ExecutorState, effectOf: (tool: string) => ToolEffect): Draft[] {
  const inFlight = s.calls.filter((c) => c.phase === "called" && c.name !== DELEGATE_TOOL);
  if (inFlight.length === 0) return [];
  return [
    ...inFlight.map(
      (c): Draft => ({
        type: "effect_unknown",
        data: {
          toolUseId: c.toolUseId,
          tool: c.name,
          effect: effectOf(c.name),
          note: `The outcome of ${c.name} (${c.toolUseId}) was never recorded: the process stopped while it ran. It was not run again; check its effect before relying on it.`,
        },
      }),
    ),
    { type: "recovered", data: { fromVersion: s.version, unknownEffects: inFlight.map((c) => c.toolUseId) } },
  ];
}
