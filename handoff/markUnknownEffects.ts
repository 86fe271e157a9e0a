import type { Handoff } from "./handoffSchema.ts";

/** An effectful call whose outcome is unknown (recorded `effect_unknown`). */
export interface UnknownEffect {
  toolUseId: string;
  tool: string;
}

/**
 * A handoff from an executor with effects of unknown outcome says so, whatever
 * the model wrote: its execution state is `unknown_effects` and each such call
 * is a gap naming the tool and its tool use id, so a person or the parent can
 * reconcile. A gap the model already wrote about that call is kept as it is.
 */
export function markUnknownEffects(handoff: Handoff, unknown: readonly UnknownEffect[]): Handoff {
  if (unknown.length === 0) return handoff;
  const unnamed = unknown.filter((u) => !handoff.gaps.some((g) => g.includes(u.toolUseId)));
  return {
    ...handoff,
    executionState: "unknown_effects",
    gaps: [
      ...handoff.gaps,
      ...unnamed.map((u) => `Unknown effect: the outcome of ${u.tool} (${u.toolUseId}) was never recorded; it was not run again. Check whether it took effect.`),
    ],
  };
}
