import { NotFoundError } from "../core/errors.ts";
import type { Draft, EventData, EventStore, RecordedEvent } from "../events/index.ts";
import { cancelRequest } from "./decide/cancel.ts";
import { type Outcome } from "./fold/executorState.ts";
import type { PostResult } from "./postToExecutor.ts";
import type { ExecutorRunner } from "./runner.ts";
import { executorStreamId } from "../events/index.ts";

type CancelledBy = EventData<"cancelled">["by"];

export interface SupervisionOptions {
  store: EventStore;
  /** A runner for an executor rebuilt from its events (its request context, model and services). */
  newRunner(events: RecordedEvent[]): Promise<ExecutorRunner>;
  /** The inbox writer: puts facts in an executor's stream and pokes its runner here. */
  post(executorId: string, drafts: readonly Draft[]): Promise<PostResult>;
}

/**
 * The runners of this process, one per live executor, by executor id: rebuilt
 * from the log on first use, started once, and asked for by id (a Child's
 * result, whether it finished, the cancel cascade). No runner is lent out to
 * another runner; they know each other by id only.
 */
export class Supervision {
  private readonly runners = new Map<string, ExecutorRunner>();

  constructor(private readonly options: SupervisionOptions) {}

  /**
   * The runner of an executor, rebuilt from its events if this process has not
   * seen it yet: from `read` when the caller has just read or written them (a
   * run being resumed, an admission just recorded), else from its stream.
   */
  async load(executorId: string, read?: RecordedEvent[] | null): Promise<ExecutorRunner> {
    const known = this.runners.get(executorId);
    if (known) return known;
    const events = read ?? (await this.options.store.readStream(executorStreamId(executorId)));
    if (events.length === 0) throw new NotFoundError(`no executor ${executorId} in the log`);
    const runner = await this.options.newRunner(events);
    const again = this.runners.get(executorId);
    if (again) return again;
    this.runners.set(executorId, runner);
    return runner;
  }

  get(executorId: string): ExecutorRunner | undefined {
    return this.runners.get(executorId);
  }

  /** Runners of this process whose executors are not final. */
  live(): ExecutorRunner[] {
    return [...this.runners.values()].filter((r) => !r.fold.done);
  }

  /** Loads an executor (from `read`, its events just recorded, if given) and lets it run in the background (its failure is its parent's to learn). */
  async start(executorId: string, read?: RecordedEvent[] | null): Promise<void> {
    void (await this.load(executorId, read)).run().catch(() => {});
  }

  /** Resolves when the child reaches a final state (rebuilding it from the log if needed). */
  async childResult(childExecutorId: string): Promise<Outcome> {
    return (await this.load(childExecutorId)).run();
  }

  /** The child's outcome if it has already finished, else null (it is started if it was not). */
  async childFinished(childExecutorId: string): Promise<Outcome | null> {
    const runner = await this.load(childExecutorId);
    if (runner.fold.done) return runner.state.outcome;
    void runner.run().catch(() => {});
    return null;
  }

  /**
   * The cancel cascade: asks each executor of this process that is still live
   * to stop, through its inbox, and waits for it to end.
   */
  async stopExecutors(executorIds: readonly string[], reason: string, by: CancelledBy): Promise<void> {
    const live = executorIds.map((id) => this.runners.get(id)).filter((r): r is ExecutorRunner => !!r && !r.fold.done);
    await Promise.all(
      live.map(async (child) => {
        await this.options.post(child.state.executorId, [cancelRequest(reason, by, "executor")]);
        await child.run().catch(() => {});
      }),
    );
  }
}
