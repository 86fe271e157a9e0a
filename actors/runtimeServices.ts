import type { IdGenerator } from "../core/clock.ts";
import type { EventData, EventStore, RecordedEvent } from "../events/index.ts";
import type { Governance } from "../governance/port.ts";
import type { ToolEffect, ToolRegistry } from "../tools/index.ts";
import type { DelegateInput } from "./delegation.ts";
import type { Outcome } from "./executorState.ts";
import type { ExecutorRunner } from "./runner.ts";

/** What an executor runner needs from the runtime that hosts it (Main, Children and Reviewers alike). */
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
    parent: ExecutorRunner,
    child: { childExecutorId: string; toolUseId: string | null; input: DelegateInput; causationId: string },
  ): Promise<void>;
  /** Resolves when the child reaches a final state (rebuilding it from the log if needed). */
  childResult(childExecutorId: string): Promise<Outcome>;
  /** The child's outcome if it has already finished, else null (never waits). */
  childFinished(childExecutorId: string): Promise<Outcome | null>;
  /** Asks the parent's live Children (and Reviewers) to stop, through their inboxes, and waits for them. */
  cancelChildren(parent: ExecutorRunner, reason: string, by: EventData<"cancelled">["by"]): Promise<void>;
  /** Starts a review of the executor's consumed findings if the run's reviewer mode and policy say so. */
  considerReview(runner: ExecutorRunner): Promise<void>;
  /** A finished review as advice text for Main. */
  renderReview(outcome: Outcome): string;
}
