import { type Kysely, sql } from "kysely";

/**
 * When a run's lease was last taken or renewed, so `ariadne status` can say how
 * old the owner's heartbeat is: a host that died leaves a lease that looks live
 * until it runs out, and a stale heartbeat is the hint.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_runs ADD COLUMN lease_renewed_at timestamptz`.execute(db);
}
