import type { Database } from "../../db/index.ts";
import { HttpProblem } from "../problem.ts";
import { findApiKey, hashSecret } from "../../db/apiKeys.ts";
import { lruMap } from "./lru.ts";
import type { Principal } from "./principal.ts";

export interface AuthenticatorOptions {
  /** How long a lookup is trusted; a revoked key stops working within this. Default 5 s. */
  cacheMs?: number;
  /** Keys remembered at most; the least recently used is forgotten first, so hot keys stay. Default 10,000. */
  cacheSize?: number;
  now?: () => number;
  /** The key a token names (default: ariadne_api_keys), for tests to count lookups. */
  lookup?: (token: string) => Promise<Principal | null>;
}

export interface Authenticator {
  (authorization: string | undefined): Promise<Principal>;
  /** A live key for this header is cached: answering it costs no lookup. */
  cached(authorization: string | undefined): boolean;
  /** Drops a revoked key's cached lookups at once. */
  forget(keyId: string): void;
}

/** The bearer token of an Authorization header, or undefined. */
export const tokenOf = (authorization: string | undefined): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];

/**
 * Resolves a request's bearer token to its key. Lookups are cached briefly
 * (by the token's hash, never the token), so a revoked key stops working
 * within `cacheMs`.
 */
export function createAuthenticator(database: Database, options: AuthenticatorOptions = {}): Authenticator {
  const cacheMs = options.cacheMs ?? 5_000;
  const now = options.now ?? Date.now;
  const lookup = options.lookup ?? ((token: string) => findApiKey(database, token));
  const cache = lruMap<string, { principal: Principal | null; until: number }>(options.cacheSize ?? 10_000);
  const authenticate = async function authenticate(authorization: string | undefined): Promise<Principal> {
    const token = tokenOf(authorization);
    if (!token) throw new HttpProblem(401, "UNAUTHENTICATED", "send an API key as `Authorization: Bearer <key>` (create one with `ariadne keys create`)");
    const digest = hashSecret(token);
    let hit = cache.get(digest);
    if (!hit || hit.until <= now()) {
      hit = { principal: await lookup(token), until: now() + cacheMs };
      if (cacheMs > 0) cache.set(digest, hit);
    }
    if (!hit.principal) throw new HttpProblem(401, "UNAUTHENTICATED", "the API key is unknown or revoked");
    return hit.principal;
  } as Authenticator;
  authenticate.cached = (authorization) => {
    const token = tokenOf(authorization);
    const hit = token ? cache.get(hashSecret(token)) : undefined;
    return !!hit?.principal && hit.until > now();
  };
  authenticate.forget = (keyId) => {
    for (const [digest, hit] of [...cache.entries()]) if (hit.principal?.keyId === keyId) cache.delete(digest);
  };
  return authenticate;
}
