import { createHash, randomBytes } from "node:crypto";
import type { Database } from "./index.ts";

/** What a key may do is its role's (http/auth/principal.ts grants the actions). */
export const ROLES = ["client", "auditor", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** A live key: its id, tenant and role. */
export interface ApiKey {
  keyId: string;
  tenant: string;
  role: Role;
}

/** The prefix makes a leaked key recognisable (secret scanners, logs). */
const PREFIX = "ariadne_";

export const hashSecret = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/**
 * Creates an API key. The token is returned once and never stored: the table
 * holds only its sha256, so a database dump cannot be replayed as keys.
 */
export async function createApiKey(database: Database, input: { role: Role; tenant: string }): Promise<{ keyId: string; token: string }> {
  const keyId = `key_${randomBytes(6).toString("hex")}`;
  const token = `${PREFIX}${randomBytes(32).toString("base64url")}`;
  await database.db
    .insertInto("ariadne_api_keys")
    .values({ key_id: keyId, secret_sha256: hashSecret(token), tenant: input.tenant, role: input.role })
    .execute();
  return { keyId, token };
}

/** Revokes a key; false when there is no such key or it was already revoked. */
export async function revokeApiKey(database: Database, keyId: string): Promise<boolean> {
  const result = await database.db
    .updateTable("ariadne_api_keys")
    .set({ revoked_at: new Date().toISOString() })
    .where("key_id", "=", keyId)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The live key a bearer token names, or null (unknown or revoked). */
export async function findApiKey(database: Database, token: string): Promise<ApiKey | null> {
  const row = await database.db
    .selectFrom("ariadne_api_keys")
    .select(["key_id", "tenant", "role"])
    .where("secret_sha256", "=", hashSecret(token))
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  return row ? { keyId: row.key_id, tenant: row.tenant, role: row.role as Role } : null;
}

/** Which of these keys are revoked now: one query for every key with a live event stream. */
export async function revokedKeyIds(database: Database, keyIds: readonly string[]): Promise<string[]> {
  if (!keyIds.length) return [];
  const rows = await database.db
    .selectFrom("ariadne_api_keys")
    .select("key_id")
    .where("key_id", "in", [...keyIds])
    .where("revoked_at", "is not", null)
    .execute();
  return rows.map((r) => r.key_id);
}
