import type { Model, ModelDelta } from "../../models/index.ts";

/** Main's reply as it streams, for live event streams: not recorded, so it has no position and no id. */
export interface AnswerDelta {
  runId: string;
  executorId: string;
  /** Main's nth model call in this host (a retried call streams again from its start under the same number). */
  call: number;
  /** Text Main writes, or a fragment of the `answer` tool's input JSON (the answer itself) as it is written. */
  delta: { type: "text"; text: string } | { type: "answer_json"; partialJson: string };
  /** From a scripted model: each block arrives whole, as one delta. */
  scripted: boolean;
}

export interface AnswerDeltas {
  publish(delta: AnswerDelta): void;
  /** Calls back with every delta of the run from now on; returns the unsubscribe. */
  subscribe(runId: string, listener: (delta: AnswerDelta) => void): () => void;
}

/** An in-process fan-out of deltas by run: the worker hosting a run publishes, live streams of this process listen. */
export function createAnswerDeltas(): AnswerDeltas {
  const listeners = new Map<string, Set<(delta: AnswerDelta) => void>>();
  return {
    publish(delta) {
      for (const listener of listeners.get(delta.runId) ?? []) {
        try {
          listener(delta);
        } catch {
          // A listener's failure is its stream's, never the run's.
        }
      }
    },
    subscribe(runId, listener) {
      const set = listeners.get(runId) ?? new Set();
      listeners.set(runId, set.add(listener));
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(runId) === set) listeners.delete(runId);
      };
    },
  };
}

/** The process's own: `ariadne serve` hosts runs and serves streams in one process, both through this. */
export const answerDeltas: AnswerDeltas = createAnswerDeltas();

/**
 * Main's model, publishing what it writes as it streams: its text and the
 * `answer` tool's input (other tools' inputs are not the answer). With no
 * stream listening a publish is a map lookup.
 */
export function publishingMainDeltas(model: Model, to: AnswerDeltas, run: { runId: string; executorId: string }): Model {
  let calls = 0;
  return {
    provider: model.provider,
    scripted: model.scripted,
    ...(model.serverSearchesPerCall !== undefined && { serverSearchesPerCall: model.serverSearchesPerCall }),
    ...(model.webSearch && { webSearch: model.webSearch }),
    complete(request, options = {}) {
      const call = ++calls;
      const onDelta = (d: ModelDelta) => {
        options.onDelta?.(d);
        if (d.type === "text") to.publish({ ...run, call, delta: d, scripted: model.scripted });
        else if (d.tool === "answer") to.publish({ ...run, call, delta: { type: "answer_json", partialJson: d.partialJson }, scripted: model.scripted });
      };
      return model.complete(request, { ...options, onDelta });
    },
  };
}
