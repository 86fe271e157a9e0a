import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { type SharedStore, type Spawned, listening, spawnAriadne } from "./spawnAriadne.ts";

// Scripted replies slow enough that runs are caught in flight; leases short enough that a killed server's runs are taken over soon.
const PACE = { ARIADNE_SCRIPTED_LATENCY_MS: "400", ARIADNE_LEASE_MS: "3000" };
const FINAL = ["settled", "failed", "cancelled"];

let scratch: ScratchDatabase;
let store: SharedStore;
let token: string;

const headers = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });
const getJson = async (url: string) => (await fetch(url, { headers: headers() })).json() as Promise<any>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function submit(url: string, question: string): Promise<any> {
  const res = await fetch(`${url}/v1/runs`, { method: "POST", headers: headers(), body: JSON.stringify({ offline: true, context: question }) });
  assert.equal(res.status, 201, await res.clone().text());
  return res.json();
}

/** Polls until every run satisfies `done` (bounded). */
async function until(url: string, ids: string[], done: (run: any) => boolean, what: string, timeoutMs = 150_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = await Promise.all(ids.map((id) => getJson(`${url}/v1/runs/${id}`)));
    if (runs.every(done)) return runs;
    if (Date.now() > deadline) throw new Error(`runs not ${what} after ${timeoutMs} ms: ${runs.map((r) => r.state).join(", ")}`);
    await sleep(200);
  }
}

/** Every committed handoff consumed exactly once by its parent, and the run verifies with its seal. */
async function assertIntact(url: string, id: string): Promise<void> {
  const page = await getJson(`${url}/v1/runs/${id}/events?limit=1000`);
  assert.equal(page.next, null, "one page holds the run");
  const committed = page.events.filter((e: any) => e.type === "handoff_committed").map((e: any) => e.executorId).sort();
  const consumed = page.events.filter((e: any) => e.type === "handoff_consumed").map((e: any) => e.data.childExecutorId).sort();
  assert.ok(committed.length > 0, "Children handed off");
  assert.deepEqual(consumed, committed, `run ${id}: every committed handoff consumed exactly once`);
  const verify = await getJson(`${url}/v1/runs/${id}/verify`);
  assert.equal(verify.ok, true, JSON.stringify(verify.problems));
  assert.equal(verify.sealed?.rootHash, verify.rootHash);
}

async function stop(server: Spawned): Promise<void> {
  server.kill("SIGTERM");
  const out = await server.output;
  assert.equal(out.code, 0, out.stderr);
}

describe("ariadne serve with workers: crash, hand-over, --no-workers", { concurrency: 1 }, () => {
  before(async () => {
    scratch = await createScratchDatabase(`ariadne_test_${process.pid}_serve_crash`, ADMIN_URL);
    store = { env: { DATABASE_URL: scratch.url }, args: [] };
    const created = await spawnAriadne(store, ["keys", "create", "--role", "client", "--tenant", "crash"]).output;
    assert.equal(created.code, 0, created.stderr);
    token = /ariadne_[A-Za-z0-9_-]+/.exec(created.stdout)![0];
  });
  after(() => scratch.drop());

  test("killed with SIGKILL while 5 runs are in flight, restarted: all 5 finish, handoffs consumed once, verify passes", { timeout: 300_000 }, async () => {
    const first = spawnAriadne(store, ["serve", "--port", "0", "--concurrency", "8"], PACE);
    const url = await listening(first);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await submit(url, `crash ${i}`)).id);
    // In flight: all five hosted here at once.
    await until(url, ids, (r) => r.state === "running", "in flight", 60_000);
    first.kill("SIGKILL");
    assert.equal((await first.output).code, null, "killed, not exited");

    const second = spawnAriadne(store, ["serve", "--port", "0", "--concurrency", "8"], PACE);
    try {
      const url2 = await listening(second);
      const runs = await until(url2, ids, (r) => FINAL.includes(r.state), "final");
      for (const run of runs) assert.equal(run.state, "settled", `${run.id}: ${run.reason}`);
      for (const id of ids) await assertIntact(url2, id);
      assert.match(second.seen.stdout, /taking over/, "the restarted server took the runs over");
    } finally {
      await stop(second);
    }
  });

  test("SIGTERM hands runs in flight over through their leases and exits 0; an `ariadne worker` finishes them", { timeout: 300_000 }, async () => {
    const server = spawnAriadne(store, ["serve", "--port", "0"], PACE);
    const url = await listening(server);
    const ids = [(await submit(url, "hand over 1")).id, (await submit(url, "hand over 2")).id];
    await until(url, ids, (r) => r.state === "running", "in flight", 60_000);
    await stop(server);

    const reader = spawnAriadne(store, ["serve", "--port", "0", "--no-workers"]);
    let worker: Spawned | undefined;
    try {
      const url2 = await listening(reader);
      // Released, not expired: queued at once for the next worker.
      for (const id of ids) assert.equal((await getJson(`${url2}/v1/runs/${id}`)).state, "queued");
      worker = spawnAriadne(store, ["worker", "--idle-exit-ms", "3000"], PACE);
      const runs = await until(url2, ids, (r) => FINAL.includes(r.state), "final");
      for (const run of runs) assert.equal(run.state, "settled", `${run.id}: ${run.reason}`);
      for (const id of ids) await assertIntact(url2, id);
      const out = await worker.output;
      assert.equal(out.code, 0, out.stderr);
      for (const id of ids) assert.match(out.stdout, new RegExp(`took run ${id} \\(epoch \\d+, taking over\\)`));
    } finally {
      if (worker?.exitCode === null) worker.kill("SIGKILL");
      await stop(reader);
    }
  });

  test("with --no-workers a run is recorded, stays queued, and a separate `ariadne worker` process finishes it", { timeout: 300_000 }, async () => {
    const server = spawnAriadne(store, ["serve", "--port", "0", "--no-workers"], PACE);
    let worker: Spawned | undefined;
    try {
      const url = await listening(server);
      const run = await submit(url, "for a worker");
      assert.equal(run.state, "queued");
      await sleep(1_500);
      assert.equal((await getJson(`${url}/v1/runs/${run.id}`)).state, "queued", "nobody executes it here");
      worker = spawnAriadne(store, ["worker", "--idle-exit-ms", "3000"], PACE);
      const [final] = await until(url, [run.id], (r) => FINAL.includes(r.state), "final");
      assert.equal(final.state, "settled");
      assert.ok(final.answer?.sections?.length > 0, "the worker's answer");
      await assertIntact(url, run.id);
      const out = await worker.output;
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`took run ${run.id} \\(epoch 1, new\\)`));
    } finally {
      if (worker?.exitCode === null) worker.kill("SIGKILL");
      await stop(server);
    }
  });
});
