import { isConnectionError } from "../core/connectionLoss.ts";
import { isDiskFull } from "../core/diskFull.ts";
import type { BackgroundChild, ChildResult } from "./decide/index.ts";
import { DelegateInput } from "./request/delegation.ts";
import type { Call, Outcome } from "./fold/executorState.ts";
import type { RunnerPort } from "./runnerPort.ts";

/** Admits the Child of a recorded delegate intent (a no-op if it already was) and lets it run. */
export async function startChild(runner: RunnerPort, call: Call): Promise<void> {
  const input = DelegateInput.parse(call.input);
  await runner.services.admitChild(runner.state, { childExecutorId: call.childExecutorId!, toolUseId: call.toolUseId, input, causationId: call.intentEventId! });
  if (input.wait === false) await runner.recordFact({ kind: "childWorking", call });
}

/** Waits for the next foreground Child to finish (or for a cancel request) and records what came back. */
export async function awaitChildren(runner: RunnerPort, calls: readonly Call[]): Promise<void> {
  const waits = calls.map((c) => childResult(c.childExecutorId!, c.toolUseId, c.intentEventId!, runner.services.childResult(c.childExecutorId!)));
  const result = await runner.during(runner.untilInterrupted(Promise.race(waits)));
  if (result) await runner.recordFact({ kind: "childrenEnded", results: [result] });
}

/**
 * Records the results of background Children that have finished; with `wait`
 * (the model has nothing to do but wait), waits for the next one rather than
 * spending a turn. True when something was recorded (the next step is decided again).
 */
export async function collectChildren(runner: RunnerPort, children: readonly BackgroundChild[], wait: boolean): Promise<boolean> {
  // A background delegate call was answered long ago; a result without an event of its own points at the latest.
  const at = runner.state.lastEventId!;
  const resultOf = (c: BackgroundChild, outcome: Promise<Outcome | null>) => childResult(c.childExecutorId, c.toolUseId, at, outcome);
  const polled = await Promise.all(children.map((c) => resultOf(c, runner.services.childFinished(c.childExecutorId))));
  const finished = polled.filter((r) => r.outcome || r.error !== undefined);
  if (finished.length === 0 && wait) {
    const next = await runner.during(runner.untilInterrupted(Promise.race(children.map((c) => resultOf(c, runner.services.childResult(c.childExecutorId))))));
    if (!next) return true;
    finished.push(next);
  }
  if (finished.length === 0) return false;
  await runner.recordFact({ kind: "childrenEnded", results: finished });
  return true;
}

/** A Child's outcome (or the error that kept it from being rebuilt) as its parent's fact. */
export function childResult(childExecutorId: string, toolUseId: string, intentEventId: string, outcome: Promise<Outcome | null>): Promise<ChildResult> {
  // A Child that cannot be rebuilt (e.g. its profile changed) fails its delegation, not this executor.
  // A Child stopped by a lost database did not fail: the parent stops too (nothing recorded) and the run is given back.
  return outcome.then(
    (o) => ({ childExecutorId, toolUseId, intentEventId, outcome: o }),
    (error: unknown) => {
      if (isConnectionError(error) || isDiskFull(error)) throw error;
      return { childExecutorId, toolUseId, intentEventId, outcome: null, error };
    },
  );
}
