import type { AssistantBlock } from "../../models/types.ts";
import type { ExecutorState } from "../fold/executorState.ts";
import type { Draft } from "./draft.ts";

/**
 * A reply that reuses a tool use id this executor already used (or gives one
 * twice) is refused as a failed model call, retryable, and never recorded as a
 * turn: recorded, two calls would share one id and a handoff citing it would
 * be ambiguous. Whatever the model; a scripted one once restarted its ids in
 * each process.
 */
export function refuseReusedToolUseIds(s: ExecutorState, content: readonly AssistantBlock[]): Draft | null {
  const used = new Set<string>();
  for (const m of s.messages) if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use") used.add(b.id);
  for (const b of content) {
    if (b.type !== "tool_use") continue;
    if (used.has(b.id)) {
      return {
        type: "turn_failed",
        data: {
          turn: s.turn + 1,
          attempt: s.failedAttempts + 1,
          kind: "reused_tool_use_id",
          message: `the reply reuses tool use id ${b.id}, which this executor already used; ids must be unique per executor, so the reply is not recorded`,
          retryable: true,
        },
      };
    }
    used.add(b.id);
  }
  return null;
}
