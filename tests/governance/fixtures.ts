import { type ExecutorState, admittedState, evolve } from "../../actors/fold/executorState.ts";
import { isConcurrencyError } from "../../core/errors.ts";
import type { EventStore, NewEvent, RecordedEvent } from "../../events/index.ts";
import type { Draft } from "../../governance/index.ts";
import { executorStreamId } from "../../events/index.ts";
import { renderAdmission } from "../../actors/request/renderTexts.ts";

export interface AdmitOptions {
  runId: string;
  executorId: string;
  role?: "main" | "child";
  parent?: ExecutorState;
  profile?: string;
  limits?: { maxTurns?: number; maxToolCalls?: number };
}

/** Admits an executor through the store, as the runtime does, and returns its folded state. */
export async function admit(store: EventStore, o: AdmitOptions): Promise<ExecutorState> {
  const role = o.role ?? (o.parent ? "child" : "main");
  const { events } = await store.append(executorStreamId(o.executorId), 0, [
    {
      type: "executor_admitted",
      data: {
        role,
        parentExecutorId: o.parent?.executorId ?? null,
        parentToolUseId: o.parent ? `toolu_${o.executorId}` : null,
        depth: o.parent ? o.parent.depth + 1 : 0,
        task: { question: `task of ${o.executorId}`, context: "", doneWhen: "" },
        profile: o.profile ? { id: o.profile, version: "1", sha256: "0".repeat(64) } : null,
        grantedTools: ["search_corpus", "delegate"],
        refusedTools: [],
        model: "claude-haiku-4-5",
        limits: { maxTurns: o.limits?.maxTurns ?? 100, maxToolCalls: o.limits?.maxToolCalls ?? 100, maxHandoffRepairs: 2 },
        ...renderAdmission({ role, task: { question: `task of ${o.executorId}`, context: "", doneWhen: "" } }),
        offered: null,
      },
      metadata: { runId: o.runId, executorId: o.executorId },
    },
  ]);
  return admittedState(events[0] as RecordedEvent<"executor_admitted">);
}

const toNew = (state: ExecutorState, d: Draft): NewEvent =>
  ({ type: d.type, data: d.data, metadata: { runId: state.runId, executorId: state.executorId, causationId: d.causationId ?? null } }) as NewEvent;

/** Appends governance drafts to the executor's own stream and folds them, as the runner does with a turn. */
export async function record(store: EventStore, state: ExecutorState, drafts: Draft[]): Promise<ExecutorState> {
  if (drafts.length === 0) return state;
  for (;;) {
    try {
      const { events } = await store.append(state.streamId, state.version, drafts.map((d) => toNew(state, d)));
      return events.reduce(evolve, state);
    } catch (e) {
      // Someone posted to this stream: fold what they wrote, then append again.
      if (!isConcurrencyError(e)) throw e;
      state = (await store.readStream(state.streamId, { fromVersion: state.version + 1 })).reduce(evolve, state);
    }
  }
}

/**
 * An outside writer, as the runtime provides it: appends to another executor's
 * stream at its current version, reading again on a conflict.
 */
export function poster(store: EventStore, runId: string) {
  return async (executorId: string, drafts: Draft[]) => {
    for (let attempt = 0; ; attempt++) {
      const version = await store.streamVersion(executorStreamId(executorId));
      try {
        await store.append(
          executorStreamId(executorId),
          version,
          drafts.map((d) => ({ type: d.type, data: d.data, metadata: { runId, executorId } }) as NewEvent),
        );
        return;
      } catch (e) {
        if (!isConcurrencyError(e) || attempt > 20) throw e;
      }
    }
  };
}
