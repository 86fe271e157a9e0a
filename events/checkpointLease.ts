import { sql } from "kysely";
import type { Database } from "../db/openDatabase.ts";
import type { Checkpoint } from "./readFromCheckpoint.ts";

/**
 * Takes or renews the lease on a subscription's checkpoint: granted when no
 * one holds it, this owner does, or the holder's lease ran out (a process that
 * died). One statement, so two claimants racing on the row (or on its first
 * insert) cannot both win: the loser's ON CONFLICT ... WHERE sees the winner's
 * row. Returns the stored checkpoint to resume from, or null while another
 * owner holds it.
 */
export async function claimCheckpoint(database: Database, subscriptionId: string, owner: string, ttlMs: number, deadOwner: string | null = null): Promise<Checkpoint | null> {
  const result = await sql<{ tx_id: string; position: string }>`
    INSERT INTO ariadne_checkpoints AS c (subscription_id, tx_id, position, lease_owner, lease_expires_at)
    VALUES (${subscriptionId}, '0', '0', ${owner}, now() + make_interval(secs => ${ttlMs / 1000}))
    ON CONFLICT (subscription_id) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_expires_at = EXCLUDED.lease_expires_at
    WHERE c.lease_owner IS NULL OR c.lease_owner = EXCLUDED.lease_owner OR c.lease_expires_at <= now() OR c.lease_owner = ${deadOwner}
    RETURNING tx_id, position`.execute(database.db);
  const row = result.rows[0];
  return row ? { txId: row.tx_id, position: Number(row.position) } : null;
}

/** Stores the checkpoint and extends the lease if this owner still holds it; false: the lease was lost (another owner resumes from the stored checkpoint). */
export async function storeLeasedCheckpoint(database: Database, subscriptionId: string, owner: string, at: Checkpoint, ttlMs: number): Promise<boolean> {
  const result = await sql`
    UPDATE ariadne_checkpoints
    SET tx_id = ${at.txId}, position = ${String(at.position)}, updated_at = now(),
        lease_expires_at = now() + make_interval(secs => ${ttlMs / 1000})
    WHERE subscription_id = ${subscriptionId} AND lease_owner = ${owner}`.execute(database.db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** Gives the lease up, so the next claimant takes over at once rather than when it runs out. */
export async function releaseCheckpoint(database: Database, subscriptionId: string, owner: string): Promise<void> {
  await sql`
    UPDATE ariadne_checkpoints SET lease_owner = NULL, lease_expires_at = NULL
    WHERE subscription_id = ${subscriptionId} AND lease_owner = ${owner}`.execute(database.db);
}

/** Who holds the checkpoint's lease now (null: nobody, or no such checkpoint). */
export async function checkpointHolder(database: Database, subscriptionId: string): Promise<string | null> {
  const row = await database.db.selectFrom("ariadne_checkpoints").select("lease_owner").where("subscription_id", "=", subscriptionId).executeTakeFirst();
  return (row?.lease_owner as string | null | undefined) ?? null;
}
