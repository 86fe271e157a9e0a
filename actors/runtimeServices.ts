import { join } from "node:path";
import type { Clock, IdGenerator } from "../core/clock.ts";
import type { EventData, EventStore, RecordedEvent } from "../events/index.ts";
import type { Governance } from "../governance/port.ts";
import type { BlobStore } from "../sources/types.ts";
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
  /** The clock tools read (a source's fetchedAt). */
  readonly clock: Clock;
  /** The run's content-addressed store of what tools read and wrote; absent, tools that need it fail clearly. */
  readonly blobs?: BlobStore;
  /** Where executors' working folders live: `<workspaceRoot>/<runId>/<executorId>/`; absent, tools get no workspace. */
  readonly workspaceRoot?: string;
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

/** An executor's own working folder under the runtime's workspace root. */
export const workspaceDirOf = (workspaceRoot: string, runId: string, executorId: string): string => join(workspaceRoot, runId, executorId);
