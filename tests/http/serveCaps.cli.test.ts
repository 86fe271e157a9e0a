import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listening, spawnAriadne, type SharedStore } from "./spawnAriadne.ts";

/**
 * The per-key and per-tenant caps of `ariadne serve` are set by flags and
 * variables (issue 33, item 7): the flag wins over the variable; a value that is
 * not a positive integer is refused with one line and exit 2.
 */
let dir: string;
let store: SharedStore;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "ariadne-serve-caps-"));
  store = { env: {}, args: ["--data-dir", dir] };
});
after(() => rm(dir, { recursive: true, force: true }));

test("--streams-per-tenant and ARIADNE_QUEUED_PER_TENANT cap a tenant's live streams and queued runs", { timeout: 120_000 }, async () => {
  const server = spawnAriadne(store, ["serve", "--port", "0", "--no-auth", "--no-workers", "--streams-per-tenant", "1"], { ARIADNE_QUEUED_PER_TENANT: "1", ARIADNE_STREAMS_PER_TENANT: "50" });
  try {
    const url = await listening(server);
    const post = () => fetch(`${url}/v1/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"offline": true}' });
    const first = await post();
    assert.equal(first.status, 201);
    const { id } = (await first.json()) as { id: string };
    const second = await post();
    assert.equal(second.status, 429, "one queued run per tenant (ARIADNE_QUEUED_PER_TENANT=1)");
    assert.match(((await second.json()) as { detail: string }).detail, /queued runs per tenant \(1\)/);

    const abort = new AbortController();
    const open = await fetch(`${url}/v1/runs/${id}/events`, { headers: { accept: "text/event-stream" }, signal: abort.signal });
    assert.equal(open.status, 200);
    const refused = await fetch(`${url}/v1/runs/${id}/events`, { headers: { accept: "text/event-stream" } });
    assert.equal(refused.status, 429, "one stream per tenant: the flag wins over ARIADNE_STREAMS_PER_TENANT=50");
    assert.match(((await refused.json()) as { detail: string }).detail, /streams per tenant \(1\)/);
    abort.abort();
  } finally {
    server.kill("SIGKILL");
    await server.output.catch(() => {});
  }
});

for (const [args, env, name] of [
  [["--streams-per-key", "0"], {}, "--streams-per-key"],
  [["--queued-per-key", "x"], {}, "--queued-per-key"],
  [[], { ARIADNE_STREAMS_PER_TENANT: "-3" }, "ARIADNE_STREAMS_PER_TENANT"],
] as const) {
  test(`serve refuses ${name} that is not a positive integer: one line, exit 2`, { timeout: 60_000 }, async () => {
    const { code, stderr } = await spawnAriadne(store, ["serve", "--port", "0", "--no-auth", ...args], env).output;
    assert.equal(code, 2, stderr);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr, new RegExp(`^ariadne: ${name} must be (a positive integer|at least 1)`));
  });
}
