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
function guarded(auth: "keys" | "none" = "keys", failures = { perSecond: 0.001, burst: 2 }) {
  let lookups = 0;
  const authenticate = createAuthenticator({} as Database, {
    cacheMs: 60_000,
    lookup: async (token) => (lookups++, token === "ariadne_good" ? CLIENT : null),
  });
  const app = new Hono<AppEnv>();
  app.use("*", authentication({ auth, authenticate, failures: createRateLimiter(failures) }));
  app.get("/me", (c) => c.json(c.get("principal")));
  app.onError((e, c) => (e instanceof HttpProblem ? c.json({ code: e.code }, e.status as 401, e.extra.headers) : c.text(String(e), 500)));
  const get = (token?: string) => app.request("/me", { headers: token ? { authorization: `Bearer ${token}` } : {} });
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

test("an address that spent its failed authentications gets 429 before any lookup, while a cached live key still passes", async () => {
  const { get, lookups } = guarded("keys", { perSecond: 0.001, burst: 2 });
  assert.equal((await get("ariadne_good")).status, 200);
  assert.equal((await get("ariadne_bad1")).status, 401);
  assert.equal((await get("ariadne_bad2")).status, 401);
  const before = lookups();
  const refused = await get("ariadne_bad3");
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get("retry-after")) > 0);
  assert.match(refused.headers.get("ratelimit-policy") ?? "", /^"failed-auth";q=2/);
  assert.equal(lookups(), before, "refused before the key is looked up");
  assert.equal((await get("ariadne_good")).status, 200, "a cached live key still passes");
});
