import { test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createAuthenticator } from "../../http/auth/authenticate.ts";
import type { Principal } from "../../http/auth/principal.ts";
import type { Database } from "../../db/index.ts";
import type { AppEnv } from "../../http/deps.ts";
import { authentication } from "../../http/middleware/authenticate.ts";
import { createRateLimiter } from "../../http/middleware/rateLimit.ts";
import { HttpProblem } from "../../http/problem.ts";

const CLIENT: Principal = { keyId: "key_1", tenant: "acme", role: "client" };

/** The authentication middleware alone, over an in-memory key lookup that counts its calls; the route echoes the principal. */
function guarded(auth: "keys" | "none" = "keys", failures = { perSecond: 0.001, burst: 2 }, trustedProxies: string[] = []) {
  let lookups = 0;
  const authenticate = createAuthenticator({} as Database, {
    cacheMs: 60_000,
    lookup: async (token) => (lookups++, token === "ariadne_good" || token === "ariadne_other_valid_key" ? CLIENT : null),
  });
  const app = new Hono<AppEnv>();
  app.use("*", authentication({ auth, authenticate, failures: createRateLimiter(failures), trustedProxies }));
  app.get("/me", (c) => c.json(c.get("principal")));
  app.onError((e, c) => (e instanceof HttpProblem ? c.json({ code: e.code }, e.status as 401, e.extra.headers) : c.text(String(e), 500)));
  /** From `peer` (the socket's address, as @hono/node-server passes it), with any extra headers. */
  const get = (token?: string, peer = "198.51.100.7", headers: Record<string, string> = {}) =>
    app.request("/me", { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } }, { incoming: { socket: { remoteAddress: peer } } });
  return { get, lookups: () => lookups };
}

test("a live bearer key sets the caller's principal; none, or an unknown one, is 401", async () => {
  const { get } = guarded();
  const ok = await get("ariadne_good");
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), CLIENT);
  assert.equal((await get()).status, 401);
  assert.deepEqual(await (await get("ariadne_bad")).json(), { code: "UNAUTHENTICATED" });
});

test("with auth off every caller is the anonymous admin of tenant default", async () => {
  const { get } = guarded("none");
  assert.deepEqual(await (await get()).json(), { keyId: null, tenant: "default", role: "admin" });
});

test("an address that spent its failed authentications gets 429 for failures, and for no key before any lookup", async () => {
  const { get, lookups } = guarded("keys", { perSecond: 0.001, burst: 2 });
  assert.equal((await get("ariadne_bad1")).status, 401);
  assert.equal((await get()).status, 401);
  const before = lookups();
  const keyless = await get();
  assert.equal(keyless.status, 429);
  assert.ok(Number(keyless.headers.get("retry-after")) > 0);
  assert.match(keyless.headers.get("ratelimit-policy") ?? "", /^"failed-auth";q=2/);
  assert.equal(lookups(), before, "no key: refused before any lookup");
  assert.equal((await get("ariadne_bad3")).status, 429, "a wrong key from a spent address is 429, not 401");
});

test("failures from one address never lock out a valid key, even one never looked up before (a proxy's shared address)", async () => {
  const { get, lookups } = guarded("keys", { perSecond: 0.001, burst: 2 });
  for (let i = 0; i < 10; i++) await get(i % 2 ? undefined : `ariadne_wrong${i}`);
  const before = lookups();
  const valid = await get("ariadne_other_valid_key");
  assert.equal(valid.status, 200, "a key not cached, presented after the address spent its failures, verifies and passes");
  assert.equal(lookups(), before + 1);
});

test("failures are counted per presented key prefix too: guessing one key's prefix from many addresses is limited", async () => {
  const { get } = guarded("keys", { perSecond: 0.001, burst: 2 });
  assert.equal((await get("ariadne_AAAAAAAA1", "198.51.100.1")).status, 401);
  assert.equal((await get("ariadne_AAAAAAAA2", "198.51.100.2")).status, 401);
  assert.equal((await get("ariadne_AAAAAAAA3", "198.51.100.3")).status, 429, "a fresh address, the spent prefix");
  assert.equal((await get("ariadne_BBBBBBBB1", "198.51.100.4")).status, 401, "another prefix from another address is not limited");
});

test("X-Forwarded-For names the client only when the peer is a configured proxy", async () => {
  // Trusted proxy 10.0.0.0/8: clients behind it are told apart by the header.
  const proxied = guarded("keys", { perSecond: 0.001, burst: 2 }, ["10.0.0.0/8"]);
  for (let i = 0; i < 3; i++) await proxied.get(undefined, "10.0.0.2", { "x-forwarded-for": "203.0.113.9" });
  assert.equal((await proxied.get(undefined, "10.0.0.2", { "x-forwarded-for": "203.0.113.9" })).status, 429, "the client behind the proxy spent its failures");
  assert.equal((await proxied.get(undefined, "10.0.0.2", { "x-forwarded-for": "203.0.113.10" })).status, 401, "another client behind the same proxy is not limited");
  // A client's own claim left of the proxy's entry is not read: the rightmost untrusted hop is.
  assert.equal((await proxied.get(undefined, "10.0.0.2", { "x-forwarded-for": "1.2.3.4, 203.0.113.9" })).status, 429);
  // From a peer that is not a configured proxy, the header is ignored: rotating it does not reset the count.
  const direct = guarded("keys", { perSecond: 0.001, burst: 2 }, ["10.0.0.0/8"]);
  for (let i = 0; i < 3; i++) await direct.get(undefined, "198.51.100.50", { "x-forwarded-for": `203.0.113.${i}` });
  assert.equal((await direct.get(undefined, "198.51.100.50", { "x-forwarded-for": "203.0.113.200" })).status, 429);
});
