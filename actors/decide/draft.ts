import type { Draft } from "../../events/draft.ts";

export type { Draft };

/** What a limit or a failure stopped, named for the caveat a partial result carries. */
export const LIMIT_LABELS: Record<string, string> = {
  executor_tool_calls: "tool call limit",
  executor_turns: "turn limit",
  executor_tokens: "token limit of this executor",
  executor_wall_clock: "wall-clock limit of this executor",
  run_tokens: "token budget of the run",
  run_cost: "cost budget of the run",
  run_wall_clock: "wall-clock limit of the run",
  delegation_depth: "delegation depth limit",
  delegation_fan_out: "delegation fan-out limit",
};
