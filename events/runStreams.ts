import type { Database } from "../db/openDatabase.ts";

/** The run-level stream: facts about the run as a whole (its seal; leases and run state later). */
export const runStreamId = (runId: string) => `run-${runId}`;

/** Executor streams are `executor-<id>`; a run's root hash covers exactly these. */
export const EXECUTOR_STREAM_PREFIX = "executor-";
export const executorStreamId = (executorId: string) => `${EXECUTOR_STREAM_PREFIX}${executorId}`;
export const isExecutorStream = (streamId: string) => streamId.startsWith(EXECUTOR_STREAM_PREFIX);

/** The streams holding events of a run, in the order they began. */
export async function listRunStreams(database: Database, runId: string): Promise<string[]> {
  const rows = await database.db
    .selectFrom("ariadne_events")
    .select(["stream_id", (eb) => eb.fn.min("global_position").as("first")])
    .where("run_id", "=", runId)
    .groupBy("stream_id")
    .execute();
  return rows.toSorted((a, b) => Number(a.first) - Number(b.first)).map((r) => r.stream_id);
}
