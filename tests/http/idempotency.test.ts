import { test } from "node:test";
import assert from "node:assert/strict";
import { bodyDigest, idempotency } from "../../http/middleware/idempotency.ts";
import { HttpProblem } from "../../http/problem.ts";
import type { Held, IdempotencyKeys, Reservation } from "../../db/idempotencyKeys.ts";

/** Keys in memory, with the table's rules: one reservation per (tenant, key), completed or released only by its holder. */
function memoryKeys(inProgressAgeSeconds = 0) {
  const rows = new Map<string, { digest: string; runId: string | null; reservedAt: string }>();
  let clock = 0;
  const keys: IdempotencyKeys = {
    async reserve(tenant, key, digest): Promise<Reservation> {
      const row = rows.get(`${tenant}/${key}`);
      if (!row) {
        const held: Held = { tenant, key, reservedAt: String(++clock) };
        rows.set(`${tenant}/${key}`, { digest, runId: null, reservedAt: held.reservedAt });
        return { kind: "new", held };
      }
      if (row.digest !== digest) return { kind: "conflict" };
      if (row.runId) return { kind: "replay", runId: row.runId };
      return { kind: "in_progress", ageSeconds: inProgressAgeSeconds, expiresInSeconds: 600 - inProgressAgeSeconds };
    },
    async complete(held, runId) {
      const row = rows.get(`${held.tenant}/${held.key}`);
      if (row && row.reservedAt === held.reservedAt && !row.runId) row.runId = runId;
    },
    async release(held) {
      const row = rows.get(`${held.tenant}/${held.key}`);
      if (row && row.reservedAt === held.reservedAt && !row.runId) rows.delete(`${held.tenant}/${held.key}`);
    },
  };
  return { keys, rows };
}

const problem = (status: number, code: string) => (e: unknown) => e instanceof HttpProblem && e.status === status && e.code === code;

test("without a key every request creates; with one, the same key and body replays the run it named", async () => {
  const once = idempotency(memoryKeys().keys);
  let made = 0;
  const create = async () => ({ id: `run-${++made}` });
  assert.deepEqual(await once("acme", undefined, {}, create), { kind: "created", value: { id: "run-1" } });
  assert.deepEqual(await once("acme", undefined, {}, create), { kind: "created", value: { id: "run-2" } });
  assert.deepEqual(await once("acme", "k1", { question: "q", caps: { main: { maxTurns: 3 } } }, create), { kind: "created", value: { id: "run-3" } });
  assert.deepEqual(await once("acme", "k1", { caps: { main: { maxTurns: 3 } }, question: "q" }, create), { kind: "replay", runId: "run-3" }, "key order does not change the body");
  assert.equal(made, 3);
});

test("the same key with another body is 409; a key whose request is still in flight is 409 with Retry-After", async () => {
  const { keys, rows } = memoryKeys();
  const once = idempotency(keys);
  await once("acme", "k1", { question: "a" }, async () => ({ id: "run-a" }));
  await assert.rejects(once("acme", "k1", { question: "b" }, async () => ({ id: "never" })), problem(409, "IDEMPOTENCY_CONFLICT"));
  rows.set("acme/k2", { digest: bodyDigest({ question: "c" }), runId: null, reservedAt: "x" });
  await assert.rejects(once("acme", "k2", { question: "c" }, async () => ({ id: "never" })), (e) => problem(409, "IDEMPOTENCY_IN_PROGRESS")(e) && (e as HttpProblem).extra.headers?.["Retry-After"] === "1");
  const held = memoryKeys(60);
  held.rows.set("acme/k3", { digest: bodyDigest({}), runId: null, reservedAt: "x" });
  await assert.rejects(idempotency(held.keys)("acme", "k3", {}, async () => ({ id: "never" })), (e) => (e as HttpProblem).extra.headers?.["Retry-After"] === "540", "held long: retry when it expires");
});

test("a failed submission gives its key back, so a retry with it creates the run", async () => {
  const { keys, rows } = memoryKeys();
  const once = idempotency(keys);
  await assert.rejects(once("acme", "k1", { question: "q" }, async () => Promise.reject(new Error("queue full"))), /queue full/);
  assert.equal(rows.size, 0);
  assert.deepEqual(await once("acme", "k1", { question: "q" }, async () => ({ id: "run-1" })), { kind: "created", value: { id: "run-1" } });
  assert.equal(rows.get("acme/k1")?.runId, "run-1");
});
