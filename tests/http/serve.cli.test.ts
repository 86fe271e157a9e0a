import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { ADMIN_URL, ENGINES } from "../support/testDatabase.ts";
import { type SharedStore, listening, spawnAriadne } from "./spawnAriadne.ts";

/** The store the spawned commands share: a scratch PostgreSQL database, or an embedded store in a temp dir. */
let store: SharedStore & { dispose(): Promise<void> };

const ariadne = (args: string[]) => spawnAriadne(store, args);

/** Revokes the key while the server runs and expects 401 within the key cache's 5 s. */
async function revokeAndExpect401(url: string, token: string, keyId: string): Promise<void> {
  const revoked = await ariadne(["keys", "revoke", keyId]).output;
  assert.equal(revoked.code, 0, revoked.stderr);
  let status = 200;
  for (let i = 0; i < 80 && status === 200; i++) {
    status = (await fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${token}` } })).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 401);
}

describe("ariadne serve and ariadne keys", { concurrency: 1 }, () => {
  before(async () => {
    if (ENGINES.includes("postgres")) {
      const scratch: ScratchDatabase = await createScratchDatabase(`ariadne_test_${process.pid}_serve`, ADMIN_URL);
      store = { env: { DATABASE_URL: scratch.url }, args: [], dispose: () => scratch.drop() };
    } else {
      const dir = await mkdtemp(join(tmpdir(), "ariadne-serve-"));
      store = { env: {}, args: ["--data-dir", dir], dispose: () => rm(dir, { recursive: true, force: true }) };
    }
  });
  after(() => store.dispose());

  test("keys create prints the key once; serve accepts it; keys revoke ends it; SIGTERM stops gracefully", { timeout: 180_000 }, async () => {
    const created = await ariadne(["keys", "create", "--role", "client", "--tenant", "acme"]).output;
    assert.equal(created.code, 0, created.stderr);
    const token = /ariadne_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
    const keyId = /key id: (key_[0-9a-f]+)/.exec(created.stdout)![1];

    const server = ariadne(["serve", "--port", "0"]);
    const url = await listening(server);
    const ok = await fetch(`${url}/v1/runs`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);

    const live = Boolean(store.env.DATABASE_URL);
    // PostgreSQL: revoked while the server runs. The embedded store belongs to one process at a time,
    // so there keys are managed while the server is stopped.
    if (live) await revokeAndExpect401(url, token, keyId);
    server.kill("SIGTERM");
    const out = await server.output;
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /"msg":"stopped"/);
    assert.doesNotMatch(out.stdout, new RegExp(token), "the key is never logged");
    if (!live) {
      const revoked = await ariadne(["keys", "revoke", keyId]).output;
      assert.equal(revoked.code, 0, revoked.stderr);
      const again = ariadne(["serve", "--port", "0"]);
      try {
        assert.equal((await fetch(`${await listening(again)}/v1/runs`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
      } finally {
        again.kill("SIGTERM");
        await again.output;
      }
    } else {
      const requests = out.stdout.split("\n").filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l));
      assert.ok(requests.some((r) => r.status === 401 && r.path === "/v1/runs"));
    }
  });

  test("keys create refuses a bad role or a missing tenant; revoke of an unknown key fails", async () => {
    const badRole = await ariadne(["keys", "create", "--role", "root", "--tenant", "t"]).output;
    assert.equal(badRole.code, 2);
    assert.match(badRole.stderr, /--role client\|auditor\|admin/);
    const noTenant = await ariadne(["keys", "create", "--role", "client"]).output;
    assert.equal(noTenant.code, 2);
    assert.match(noTenant.stderr, /--tenant/);
    const unknown = await ariadne(["keys", "revoke", "key_nope"]).output;
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no live key key_nope/);
  });

  test("serve --no-auth says so loudly and lets callers in as admin", { timeout: 180_000 }, async () => {
    const server = ariadne(["serve", "--port", "0", "--no-auth"]);
    const url = await listening(server);
    assert.equal((await fetch(`${url}/v1/runs`)).status, 200);
    server.kill("SIGTERM");
    const out = await server.output;
    assert.match(out.stderr, /WARNING: AUTH IS OFF/);
    assert.match(out.stdout, /"level":"warn".*AUTH IS OFF/);
  });
});
