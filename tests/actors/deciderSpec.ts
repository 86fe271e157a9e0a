import assert from "node:assert/strict";
import { type ExecutorFold, type ExecutorState, type ExecutorStatus, foldExecutor } from "../../actors/index.ts";
import type { EventData, EventType } from "../../events/index.ts";
import { recorded } from "./fixtures.ts";

/** An event as a test writes it: type and data; versions and ids are filled in. */
export type Given = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

export const ev = <T extends EventType>(type: T, data: EventData<T>): Given => ({ type, data }) as Given;

/**
 * Given events / when a decision / then its result, with no store and no
 * model (Emmett's DeciderSpecification): the events are folded by the one
 * executor fold, the decision is called on the folded state, and its result
 * is compared with what the test expects.
 */
export function spec(executorId = "exec-pure") {
  return {
    given(...events: Given[]) {
      const fold: ExecutorFold = foldExecutor(events.map((e, i) => recorded(executorId, i + 1, e.type, e.data as never)));
      return {
        when<R>(decide: (state: ExecutorState, status: ExecutorStatus) => R) {
          const result = decide(fold.state, fold.status);
          return {
            then(expected: unknown) {
              assert.deepEqual(result, expected);
            },
            thenMatches(check: (result: R) => void) {
              check(result);
            },
            result,
          };
        },
        fold,
      };
    },
  };
}
