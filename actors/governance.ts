import type { Call, ExecutorState } from "./executorState.ts";

/**
 * Governance in code: asked before every model call and every tool call.
 * A refusal is recorded; the executor then finishes with what it has.
 * (Budgets shared across a run plug in here.)
 */
export interface Governance {
  beforeModelCall(state: ExecutorState): string | null;
  beforeToolCall(state: ExecutorState, call: Call): string | null;
}

/** Per-executor limits frozen into its admitted event. */
export const limitsGovernance: Governance = {
  beforeModelCall: (s) => (s.turn >= s.limits.maxTurns ? `turn limit reached (${s.limits.maxTurns} turns)` : null),
  beforeToolCall: (s) =>
    s.toolCalls >= s.limits.maxToolCalls ? `tool call limit reached (${s.limits.maxToolCalls} calls for this executor)` : null,
};
