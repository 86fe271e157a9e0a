import type { EventData } from "../events/index.ts";
import type { ChildrenView } from "./remindRules.ts";

/**
 * What governance reads of an executor: a narrow view of the state the runtime
 * folded from the executor's stream. Governance keeps no memory of its own
 * between calls; what an executor has done is what its log says, seen here.
 */
export interface ExecutorView {
  executorId: string;
  runId: string;
  streamId: string;
  role: EventData<"executor_admitted">["role"];
  parentExecutorId: string | null;
  /** 0 for Main, 1 for its Children, and so on. */
  depth: number;
  profile: { id: string } | null;
  /** Completed model turns. */
  turn: number;
  /** Tool call intents recorded so far: a turn being decided has none of its own in it yet. */
  toolCalls: number;
  /** The limits frozen at admission. */
  limits: { maxTurns: number; maxToolCalls: number };
  children: ChildrenView;
}

/** One tool use of a turn, as governance decides it. */
export interface ToolCallRequest {
  toolUseId: string;
  name: string;
}
