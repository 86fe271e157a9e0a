import type { Governance, Verdict } from "../governance/port.ts";

export type { Governance } from "../governance/port.ts";

const allowed = { ok: true as const, events: [] };

/**
 * The default governance: only the per-executor limits frozen at admission
 * (model turns, tool calls). Budgets shared by a run (governance/) plug in
 * through the same port.
 */
export const limitsGovernance: Governance = {
  async beforeModelCall(s): Promise<Verdict<{ reservation: null }>> {
    if (s.turn < s.limits.maxTurns) return { ...allowed, reservation: null };
    return { ok: false, limit: "executor_turns", reason: `turn limit reached (${s.limits.maxTurns} turns)`, events: [] };
  },
  async afterModelCall() {
    return [];
  },
  async beforeToolCalls(s, calls): Promise<Verdict[]> {
    // Each call allowed in this turn counts against the ones after it.
    const refused = { ok: false as const, limit: "executor_tool_calls" as const, reason: `tool call limit reached (${s.limits.maxToolCalls} calls for this executor)`, events: [] };
    return calls.map((_, i) => (s.toolCalls + i < s.limits.maxToolCalls ? allowed : refused));
  },
};
