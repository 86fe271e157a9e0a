import { Runtime, type Transcript, readTranscript, streamIdOf } from "../actors/index.ts";
import { RunOptions } from "./lease/runLease.ts";
import type { EventStore } from "../events/index.ts";
import type { Model } from "../models/types.ts";
import { runTools } from "./host/runTools.ts";

// Reading the log never calls a model; one that is called anyway says so instead of answering.
const noModel: Model = {
  provider: "none",
  scripted: false,
  complete: () => Promise.reject(new Error("this runtime only reads the log and calls no model")),
};

/** A Runtime over the same tools runs are hosted with, for reading runs back (transcripts), never for running them; pass the run's allowedProfiles. */
export function readingRuntime(store: EventStore, options: { allowedProfiles?: readonly string[] } = {}): Runtime {
  return new Runtime({
    store,
    // A run's requests offered only its allowed profiles to delegate to; the rebuilt ones must too.
    allowedProfiles: options.allowedProfiles,
    models: { main: noModel, child: noModel },
    modelNames: { main: "none", child: "none" },
    tools: runTools(),
  });
}

/**
 * An executor's transcript rebuilt from the log, with the run's recorded
 * options (allowedProfiles) so the rebuilt requests match the digests recorded.
 * It only reads: no runtime is built.
 */
export async function transcriptOf(store: EventStore, executorId: string): Promise<Transcript> {
  const first = (await store.readStream(streamIdOf(executorId)))[0];
  const row = first
    ? await store.database.db.selectFrom("ariadne_runs").select("options").where("run_id", "=", first.metadata.runId).executeTakeFirst()
    : undefined;
  const options = row ? RunOptions.safeParse(row.options) : null;
  return readTranscript(store, executorId, { tools: runTools(), allowedProfiles: options?.success ? options.data.allowedProfiles : undefined });
}
