import { type Transcript, readTranscript } from "../actors/index.ts";
import { type EventStore, executorStreamId } from "../events/index.ts";
import { runTools } from "./host/runTools.ts";
import { RunOptions } from "./lease/runLease.ts";

/**
 * An executor's transcript rebuilt from the log: from the system prompt and
 * tool specs it was offered, as recorded at admission; for an admission
 * recorded before they were, from this host's tools and the run's recorded
 * options (allowedProfiles), so the rebuilt requests match the digests recorded.
 * The use case behind `ariadne transcript` and the API's transcript route. It
 * only reads: no runtime is built, no model is called.
 */
export async function transcriptOf(store: EventStore, executorId: string): Promise<Transcript> {
  const first = (await store.readStream(executorStreamId(executorId)))[0];
  const row = first
    ? await store.database.db.selectFrom("ariadne_runs").select("options").where("run_id", "=", first.metadata.runId).executeTakeFirst()
    : undefined;
  const options = row ? RunOptions.safeParse(row.options) : null;
  return readTranscript(store, executorId, { tools: runTools(), allowedProfiles: options?.success ? options.data.allowedProfiles : undefined });
}
