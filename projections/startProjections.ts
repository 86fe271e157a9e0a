import { randomId } from "../core/clock.ts";
import type { Checkpoint, EventStore, RecordedEvent, Subscription } from "../events/index.ts";
import { START, storeCheckpoint } from "../events/readFromCheckpoint.ts";
import { type RunProjectionState, runProjection } from "./runProjection.ts";
import { type RunView, runView } from "./runView.ts";

export interface ProjectionRunnerOptions {
  /** Names the stored checkpoint. Default: one per runner, since the state it belongs to lives in this process. */
  subscriptionId?: string;
  pollMs?: number;
  batchSize?: number;
  /** Called once if the subscription fails; the runner then stops. */
  onError?: (error: unknown) => void;
  /** After each event is folded, with its run's new state. */
  onEvent?: (event: RecordedEvent, state: RunProjectionState) => void;
}

export interface ProjectionRunner {
  /** A run's current view, or undefined when none of its events has been read yet. */
  view(runId: string): RunView | undefined;
  state(runId: string): RunProjectionState | undefined;
  runIds(): string[];
  /** Resolves once every event committed before the call is folded. */
  caughtUp(): Promise<void>;
  /** Resets the checkpoint to the start of the log and folds it all again; readers keep the old views until it has caught up. */
  rebuild(): Promise<void>;
  stop(): Promise<void>;
  position(): Checkpoint;
}

/**
 * Keeps every run's projections current from the store's subscription: each
 * event is folded into its run's state, and the subscription stores the
 * checkpoint after each batch.
 *
 * The states live in memory, not in tables (no migration): they are a fold of
 * the log, which stays the one source of truth, and a fold from zero is what a
 * rebuild is anyway. So a runner always starts from zero: it resets its stored
 * checkpoint before subscribing, because a checkpoint past events whose state
 * this process never held would skip them. The stored checkpoint then says how
 * far this runner has got. Persisting states (to start without re-reading the
 * log) can come later without changing readers: they call `view(runId)`.
 */
export async function startProjections(store: EventStore, options: ProjectionRunnerOptions = {}): Promise<ProjectionRunner> {
  const subscriptionId = options.subscriptionId ?? `projections-${randomId()}`;
  // Readers see `states`; a rebuild folds into a fresh map and swaps it in once caught up.
  let states = new Map<string, RunProjectionState>();
  let folding = states;
  let subscription: Subscription;

  const handle = (event: RecordedEvent) => {
    const runId = event.metadata.runId;
    const next = runProjection.evolve(folding.get(runId) ?? runProjection.initial(), event);
    folding.set(runId, next);
    options.onEvent?.(event, next);
  };
  const subscribeFromZero = async () => {
    await storeCheckpoint(store.database, subscriptionId, START);
    folding = new Map();
    subscription = await store.subscribe({
      subscriptionId,
      handle,
      pollMs: options.pollMs,
      batchSize: options.batchSize,
      onError: options.onError,
    });
  };
  await subscribeFromZero();
  states = folding;

  return {
    view: (runId) => {
      const state = states.get(runId);
      return state && runView(state);
    },
    state: (runId) => states.get(runId),
    runIds: () => [...states.keys()],
    caughtUp: () => subscription.caughtUp(),
    async rebuild() {
      await subscription.stop();
      await subscribeFromZero();
      await subscription.caughtUp();
      states = folding;
    },
    stop: () => subscription.stop(),
    position: () => subscription.position(),
  };
}
