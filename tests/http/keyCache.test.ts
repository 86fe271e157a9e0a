import { test } from "node:test";
import assert from "node:assert/strict";
import { createAuthenticator } from "../../http/auth/authenticate.ts";
import type { Principal } from "../../http/auth/principal.ts";
import type { Database } from "../../db/index.ts";

const HOT = "ariadne_hot";

function counted() {
  const lookups = new Map<string, number>();
  const lookup = async (token: string): Promise<Principal | null> => {
    lookups.set(token, (lookups.get(token) ?? 0) + 1);
    return token === HOT || token === "ariadne_cold" ? { keyId: token, tenant: "t", role: "client" } : null;
  };
  return { lookups, lookup };
}

test("the key cache is bounded and keeps hot keys: 12,000 other tokens pass through, a key in use is looked up once", async () => {
  const { lookups, lookup } = counted();
  const authenticate = createAuthenticator({} as Database, { cacheMs: 60_000, lookup });
  await authenticate(`Bearer ariadne_cold`);
  for (let i = 0; i < 12_000; i++) {
    await assert.rejects(authenticate(`Bearer ariadne_unknown${i}`), { status: 401 });
    if (i % 100 === 0) await authenticate(`Bearer ${HOT}`);
  }
  assert.equal(lookups.get(HOT), 1, "the hot key stayed cached");
  await authenticate(`Bearer ariadne_cold`);
  assert.equal(lookups.get("ariadne_cold"), 2, "a key unused since 10,000 others came was forgotten");
});

test("a revoked key's cached lookups can be dropped at once", async () => {
  const { lookups, lookup } = counted();
  const authenticate = createAuthenticator({} as Database, { cacheMs: 60_000, lookup });
  await authenticate(`Bearer ${HOT}`);
  assert.equal(authenticate.cached(`Bearer ${HOT}`), true);
  authenticate.forget(HOT);
  assert.equal(authenticate.cached(`Bearer ${HOT}`), false);
  await authenticate(`Bearer ${HOT}`);
  assert.equal(lookups.get(HOT), 2);
});
