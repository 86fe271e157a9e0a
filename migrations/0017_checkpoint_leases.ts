import { type Kysely, sql } from "kysely";

/**
 * A lease on a subscription's checkpoint (events/checkpointLease.ts): a
 * subscription that asks for one advances the checkpoint only while it holds
 * the lease, so several processes sharing one checkpoint (the span exporter of
 * `serve` and of each `worker`) take turns instead of each handling every event.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_checkpoints ADD COLUMN lease_owner text, ADD COLUMN lease_expires_at timestamptz`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ariadne_checkpoints DROP COLUMN IF EXISTS lease_owner, DROP COLUMN IF EXISTS lease_expires_at`.execute(db);
}
