import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { Database } from "../db/index.ts";

export type Reservation =
  | { kind: "new" }
  | { kind: "replay"; runId: string }
  | { kind: "conflict" }
  | { kind: "in_progress" };

/** The same body however its keys are ordered or spaced: sha256 of its RFC 8785 JSON. */
export const bodyDigest = (body: unknown): string => createHash("sha256").update(canonicalize(body) ?? "", "utf8").digest("hex");

/**
 * Takes an Idempotency-Key for a tenant before the run is submitted. The insert
 * is the lock: of two concurrent requests with one key, one gets "new", the
 * other sees the reservation (in progress, or the run once it exists).
 */
export async function reserveKey(database: Database, tenant: string, key: string, digest: string): Promise<Reservation> {
  const inserted = await database.db
    .insertInto("ariadne_idempotency_keys")
    .values({ tenant, idempotency_key: key, request_sha256: digest, run_id: null })
    .onConflict((oc) => oc.columns(["tenant", "idempotency_key"]).doNothing())
    .returning("tenant")
    .executeTakeFirst();
  if (inserted) return { kind: "new" };
  const row = await database.db
    .selectFrom("ariadne_idempotency_keys")
    .select(["request_sha256", "run_id"])
    .where("tenant", "=", tenant)
    .where("idempotency_key", "=", key)
    .executeTakeFirst();
  // Released between our insert and read: the caller's retry will take it.
  if (!row) return { kind: "in_progress" };
  if (row.request_sha256 !== digest) return { kind: "conflict" };
  return row.run_id ? { kind: "replay", runId: row.run_id } : { kind: "in_progress" };
}

export async function completeKey(database: Database, tenant: string, key: string, runId: string): Promise<void> {
  await database.db.updateTable("ariadne_idempotency_keys").set({ run_id: runId }).where("tenant", "=", tenant).where("idempotency_key", "=", key).execute();
}

/** A submission that failed gives its key back, so the client can retry with it. */
export async function releaseKey(database: Database, tenant: string, key: string): Promise<void> {
  await database.db
    .deleteFrom("ariadne_idempotency_keys")
    .where("tenant", "=", tenant)
    .where("idempotency_key", "=", key)
    .where("run_id", "is", null)
    .execute();
}
