import { sql } from "kysely";
import { AriadneError } from "../core/errors.ts";
import type { EventStore } from "../events/index.ts";

/** A run whose log does not verify: it is never resumed (and never re-sealed over the damage). */
export class RunDamagedError extends AriadneError {
  constructor(readonly runId: string, detail: string) {
    super("RUN_DAMAGED", 409, `run ${runId} cannot be resumed: ${detail}`);
  }
}

/** Verifies the hash chain of every stream of a run before it is rebuilt; throws naming the first bad event. */
export async function verifyRun(store: EventStore, runId: string): Promise<number> {
  const streams = await sql<{ stream_id: string }>`
    SELECT DISTINCT stream_id FROM ariadne_events WHERE run_id = ${runId} ORDER BY stream_id`.execute(store.database.db);
  for (const { stream_id } of streams.rows) {
    const v = await store.verify(stream_id);
    if (!v.ok) {
      throw new RunDamagedError(
        runId,
        `stream ${stream_id} fails verification at version ${v.firstBad.streamVersion} (event ${v.firstBad.eventId}, position ${v.firstBad.globalPosition}): ${v.reason}`,
      );
    }
  }
  return streams.rows.length;
}
