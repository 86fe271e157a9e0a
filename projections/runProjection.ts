import type { RecordedEvent } from "../events/index.ts";
import { type BudgetState, budget } from "./budget.ts";
import { type ProgressState, executorProgress } from "./executorProgress.ts";
import type { Projection } from "./projection.ts";
import { type ReminderState, reminders } from "./reminders.ts";
import { type RunLifecycle, runState } from "./runState.ts";
import { type UnknownEffectState, unknownEffects } from "./unknownEffects.ts";

/** Every projection of one run, side by side. */
export interface RunProjectionState {
  lifecycle: RunLifecycle;
  progress: ProgressState;
  budget: BudgetState;
  reminders: ReminderState;
  unknownEffects: UnknownEffectState;
}

/** The run's projections as one fold over the run's events (the executor tree is a view of `progress`). */
export const runProjection: Projection<RunProjectionState> = {
  name: "run",
  initial: () => ({
    lifecycle: runState.initial(),
    progress: executorProgress.initial(),
    budget: budget.initial(),
    reminders: reminders.initial(),
    unknownEffects: unknownEffects.initial(),
  }),
  evolve: (state, event: RecordedEvent) => ({
    lifecycle: runState.evolve(state.lifecycle, event),
    progress: executorProgress.evolve(state.progress, event),
    budget: budget.evolve(state.budget, event),
    reminders: reminders.evolve(state.reminders, event),
    unknownEffects: unknownEffects.evolve(state.unknownEffects, event),
  }),
};
