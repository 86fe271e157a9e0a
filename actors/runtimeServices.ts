import { join } from "node:path";
import type { Clock, IdGenerator } from "../core/clock.ts";
import type { EventData, EventStore, RecordedEvent } from "../events/index.ts";
import type { Governance } from "../governance/port.ts";
import type { BlobStore } from "../sources/types.ts";
import type { ToolEffect, ToolRegistry } from "../tools/index.ts";
import type { DelegateInput } from "./request/delegation.ts";
import type { ExecutorState, Outcome } from "./fold/executorState.ts";
import type { ReviewMode, ReviewPolicy } from "./decide/reviewPolicy.ts";

/**
 * What an executor runner needs from the runtime that hosts it (Main, Children
 * and Reviewers alike). Other executors are named by id, a parent by its folded
 * state: a runner never holds another runner.
 */
export interface RuntimeServices {
  readonly store: EventStore;
  readonly tools: ToolRegistry;
  readonly governance: Governance;
  readonly newId: IdGenerator;
  readonly clock: Clock;
  /** The run's content-addressed store of what tools read and wrote; absent, tools that need it fail clearly. */
  readonly blobs?: BlobStore;
  /** Where executors' working folders live: `<workspaceRoot>/<runId>/<executorId>/`; absent, tools get no workspace. */
  readonly workspaceRoot?: string;
  /** The run's reviewer mode and the policy that says when to start a review. */
  readonly review: { mode: ReviewMode; policy: ReviewPolicy };
  emit(event: RecordedEvent): void;
  effectOf(tool: string): ToolEffect;
  /** A reason the delegation cannot be admitted (unknown profile), or null. */
  checkDelegation(input: DelegateInput): Promise<string | null>;
  /** Admits the Child of a recorded delegate intent of `parent` (a no-op if it already was) and lets it run. */
  admitChild(parent: ExecutorState, child: { childExecutorId: string; toolUseId: string | null; input: DelegateInput; causationId: string }): Promise<void>;
  /** Resolves when the child reaches a final state (rebuilding it from the log if needed). */
  childResult(childExecutorId: string): Promise<Outcome>;
  /** The child's outcome if it has already finished, else null (never waits). */
  childFinished(childExecutorId: string): Promise<Outcome | null>;
  /** Asks these executors (a parent's live Children and Reviewers) to stop, through their inboxes, and waits for them. */
  stopExecutors(executorIds: readonly string[], reason: string, by: EventData<"cancelled">["by"]): Promise<void>;
  /** A `review_requested` folded into `parent`'s stream: its Reviewer is admitted and started. */
  reviewRequested(parent: ExecutorState, requested: RecordedEvent<"review_requested">): Promise<void>;
}

/** An executor's own working folder under the runtime's workspace root. */
export const workspaceDirOf = (workspaceRoot: string, runId: string, executorId: string): string => join(workspaceRoot, runId, executorId);
