import { type Projection, executorStreamOf, fieldsOf } from "./projection.ts";

/** A tool call whose outcome is unknown: recorded `effect_unknown` (a crash or a cancel hit it mid-effect), never run again. */
export interface UnknownEffect {
  executorId: string;
  toolUseId: string;
  tool: string;
  /** Global position of its `effect_unknown` event: the order they are listed in. */
  at: number;
}

export interface UnknownEffectState {
  /** By executor and tool use id (a tool use id is unique only within its executor). */
  effects: Record<string, UnknownEffect>;
}

/**
 * The run's effects of unknown outcome, read off the `effect_unknown` events of
 * the executor streams (each names its tool, so no turn is needed to name it).
 * Keyed, and listed by log position, so the order streams are read in does not matter.
 */
export const unknownEffects: Projection<UnknownEffectState> = {
  name: "unknown-effects",
  initial: () => ({ effects: {} }),
  evolve(state, event) {
    if ((event.type as string) !== "effect_unknown") return state;
    const executorId = executorStreamOf(event);
    if (!executorId) return state;
    const d = fieldsOf(event);
    const toolUseId = String(d.toolUseId);
    const key = `${executorId}/${toolUseId}`;
    if (state.effects[key]) return state;
    const effect = { executorId, toolUseId, tool: typeof d.tool === "string" ? d.tool : "a tool", at: event.globalPosition };
    return { effects: { ...state.effects, [key]: effect } };
  },
};

/** In the order they were recorded. */
export const unknownEffectsInOrder = (state: UnknownEffectState): UnknownEffect[] => Object.values(state.effects).sort((a, b) => a.at - b.at);
