import { sql } from "kysely";
import type { Database } from "../db/openDatabase.ts";

// Stream ids are pure (events/streamIds.ts): the offline bundle verifier needs them without a database driver.
export { EXECUTOR_STREAM_PREFIX, executorStreamId, isExecutorStream, runStreamId } from "./streamIds.ts";

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

/** The executor id of the run's admitted Main, from the log; null before Main is admitted. */
export async function findMainExecutorId(database: Database, runId: string): Promise<string | null> {
  const { rows } = await sql<{ executor_id: string }>`
    SELECT executor_id FROM ariadne_events
    WHERE run_id = ${runId} AND type = 'executor_admitted' AND stream_version = 1 AND data->>'role' = 'main'
    LIMIT 1`.execute(database.db);
  return rows[0]?.executor_id ?? null;
}
