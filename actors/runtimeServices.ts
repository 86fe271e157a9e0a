import type { IdGenerator } from "../core/clock.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import type { ToolEffect, ToolRegistry } from "../tools/index.ts";
import type { DelegateInput } from "./delegation.ts";
import type { ExecutorDriver } from "./executorDriver.ts";
import type { Outcome } from "./executorState.ts";
import type { Governance } from "./governance.ts";

/** What an executor driver needs from the runtime that hosts it (Main and Children alike). */
export interface RuntimeServices {
  readonly store: EventStore;
  readonly tools: ToolRegistry;
  readonly governance: Governance;
  readonly newId: IdGenerator;
  emit(event: RecordedEvent): void;
  effectOf(tool: string): ToolEffect;
  /** A reason the delegation cannot be admitted (unknown profile), or null. */
  checkDelegation(input: DelegateInput): Promise<string | null>;
  admitChild(
    parent: ExecutorDriver,
    child: { childExecutorId: string; toolUseId: string; input: DelegateInput; causationId: string },
  ): Promise<void>;
  /** Resolves when the child reaches a final state (rebuilding it from the log if needed). */
  childResult(childExecutorId: string): Promise<Outcome>;
  /** The child's outcome if it has already finished, else null (never waits). */
  childFinished(childExecutorId: string): Promise<Outcome | null>;
  /** Cancels the parent's children that are still running. */
  stopChildrenOf(parent: ExecutorDriver, reason: string): Promise<void>;
}
