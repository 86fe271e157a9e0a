import type { Database } from "../../db/index.ts";
import { HttpProblem } from "../problem.ts";
import { findApiKey, hashSecret } from "./apiKeys.ts";
import type { Principal } from "./principal.ts";

/**
 * Resolves a request's bearer token to its key. Lookups are cached briefly
 * (by the token's hash, never the token), so a revoked key stops working
 * within `cacheMs`.
 */
export function createAuthenticator(database: Database, options: { cacheMs?: number; now?: () => number } = {}) {
  const cacheMs = options.cacheMs ?? 5_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { principal: Principal | null; until: number }>();
  return async function authenticate(authorization: string | undefined): Promise<Principal> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) throw new HttpProblem(401, "UNAUTHENTICATED", "send an API key as `Authorization: Bearer <key>` (create one with `ariadne keys create`)");
    const digest = hashSecret(match[1]);
    let hit = cache.get(digest);
    if (!hit || hit.until <= now()) {
      hit = { principal: await findApiKey(database, match[1]), until: now() + cacheMs };
      if (cache.size > 10_000) cache.clear();
      if (cacheMs > 0) cache.set(digest, hit);
    }
    if (!hit.principal) throw new HttpProblem(401, "UNAUTHENTICATED", "the API key is unknown or revoked");
    return hit.principal;
  };
}
