import { sql } from "kysely";
import type { Database } from "./index.ts";

/** How long reservations hold; after that a later request may take the key over. */
export interface IdempotencyWindows {
  /** A reservation whose run was never recorded (the request crashed or hangs). Default 10 minutes. */
  inProgressMs?: number;
  /** A key that names its run: replayed for this long after first use. Default 24 hours. */
  completedMs?: number;
}

export const DEFAULT_IDEMPOTENCY: Required<IdempotencyWindows> = { inProgressMs: 10 * 60_000, completedMs: 24 * 60 * 60_000 };

/** The reservation a request holds: when it was taken, so only its holder completes or releases it. */
export interface Held {
  tenant: string;
  key: string;
  reservedAt: string;
}

export type Reservation =
  | { kind: "new"; held: Held }
  | { kind: "replay"; runId: string }
  | { kind: "conflict" }
  /** Another request holds the key; it expires in `expiresInSeconds` unless that request finishes first. */
  | { kind: "in_progress"; ageSeconds: number; expiresInSeconds: number };

/**
 * Takes an Idempotency-Key for a tenant before the run is submitted. The insert
 * is the lock: of two concurrent requests with one key, one gets "new", the
 * other sees the reservation (in progress, or the run once it exists). A
 * reservation past its window (a crash between reserving and recording the
 * run, or a completed key older than its replay window) is taken over in the
 * same statement, so it never answers "in progress" forever.
 */
export async function reserveKey(database: Database, tenant: string, key: string, digest: string, windows: IdempotencyWindows = {}): Promise<Reservation> {
  const { inProgressMs, completedMs } = { ...DEFAULT_IDEMPOTENCY, ...windows };
  const taken = await sql<{ reserved_at: string }>`
    INSERT INTO ariadne_idempotency_keys AS k (tenant, idempotency_key, request_sha256, run_id)
    VALUES (${tenant}, ${key}, ${digest}, NULL)
    ON CONFLICT (tenant, idempotency_key) DO UPDATE
      SET request_sha256 = excluded.request_sha256, run_id = NULL, created_at = now()
      WHERE (k.run_id IS NULL AND k.created_at <= now() - make_interval(secs => ${inProgressMs / 1000}))
         OR (k.run_id IS NOT NULL AND k.created_at <= now() - make_interval(secs => ${completedMs / 1000}))
    RETURNING created_at::text AS reserved_at`.execute(database.db);
  if (taken.rows[0]) return { kind: "new", held: { tenant, key, reservedAt: taken.rows[0].reserved_at } };
  const row = (
    await sql<{ request_sha256: string; run_id: string | null; age_ms: number | string }>`
      SELECT request_sha256, run_id, (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms
      FROM ariadne_idempotency_keys WHERE tenant = ${tenant} AND idempotency_key = ${key}`.execute(database.db)
  ).rows[0];
  // Released between our insert and read: the caller's retry will take it.
  if (!row) return { kind: "in_progress", ageSeconds: 0, expiresInSeconds: 1 };
  if (row.request_sha256 !== digest) return { kind: "conflict" };
  if (row.run_id) return { kind: "replay", runId: row.run_id };
  const ageMs = Math.max(0, Number(row.age_ms));
  return { kind: "in_progress", ageSeconds: Math.floor(ageMs / 1000), expiresInSeconds: Math.max(1, Math.ceil((inProgressMs - ageMs) / 1000)) };
}

/** Names the run; only the request that holds the reservation does (not one whose reservation expired and was taken over). */
export async function completeKey(database: Database, held: Held, runId: string): Promise<void> {
  await sql`
    UPDATE ariadne_idempotency_keys SET run_id = ${runId}
    WHERE tenant = ${held.tenant} AND idempotency_key = ${held.key} AND run_id IS NULL AND created_at = ${held.reservedAt}::timestamptz`.execute(database.db);
}

/** A submission that failed gives its key back, so the client can retry with it. */
export async function releaseKey(database: Database, held: Held): Promise<void> {
  await sql`
    DELETE FROM ariadne_idempotency_keys
    WHERE tenant = ${held.tenant} AND idempotency_key = ${held.key} AND run_id IS NULL AND created_at = ${held.reservedAt}::timestamptz`.execute(database.db);
}

/** The three calls a submission makes on its key: what http/middleware/idempotency.ts is given. */
export interface IdempotencyKeys {
  reserve(tenant: string, key: string, digest: string): Promise<Reservation>;
  complete(held: Held, runId: string): Promise<void>;
  release(held: Held): Promise<void>;
}

/** The keys in ariadne_idempotency_keys, reservations held for `windows`. */
export function idempotencyKeysIn(database: Database, windows: IdempotencyWindows = {}): IdempotencyKeys {
  return {
    reserve: (tenant, key, digest) => reserveKey(database, tenant, key, digest, windows),
    complete: (held, runId) => completeKey(database, held, runId),
    release: (held) => releaseKey(database, held),
  };
}
