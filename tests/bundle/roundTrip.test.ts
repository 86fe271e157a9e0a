import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { verifyBundle } from "../../bundle/verifyBundle.ts";
import { keyFingerprint } from "../../core/keyFingerprint.ts";
import { LANE_ENGINES } from "../support/testDatabase.ts";
import { exportedRun } from "./exportedRun.ts";

const key = generateKeyPairSync("ed25519");

for (const engine of LANE_ENGINES) {
  describe(`export then verify on ${engine}, with the database gone`, () => {
    test("the bundle verifies from its files alone, its signature checked with the public key", async () => {
      const run = await exportedRun(engine, key.privateKey);
      const result = verifyBundle(run.dir, { publicKey: key.publicKey });
      assert.deepEqual(result.problems, []);
      assert.equal(result.ok, true);
      assert.deepEqual(result.signature, { state: "valid", keyId: keyFingerprint(key.publicKey) });
      assert.equal(result.runId, run.runId);
      assert.ok(result.counts.events > 20 && result.counts.streams >= 4 && result.counts.blobs > 0, JSON.stringify(result.counts));
      const files = readdirSync(run.dir, { recursive: true }).map(String);
      for (const f of ["events.jsonl", "manifest.json", "manifest.sig.json", "request.md", "plan.md", "answer.md", "sources.jsonl"]) assert.ok(files.includes(f), `${f} in ${files.join(", ")}`);
      assert.ok(files.some((f) => f.startsWith("findings/")) && files.some((f) => f.startsWith("transcripts/")) && files.some((f) => f.startsWith("blobs/sha256/")));
      const manifest = JSON.parse(readFileSync(join(run.dir, "manifest.json"), "utf8"));
      assert.equal(manifest.counts.events, readFileSync(join(run.dir, "events.jsonl"), "utf8").trim().split("\n").length);
      assert.ok(manifest.files.some((f: { path: string }) => f.path === "claims.jsonl"), "the manifest lists claims.jsonl");
    });

    test("claims.jsonl holds the chains ariadne audit reads from the store, and answer.md labels the claims with their ids", async () => {
      const run = await exportedRun(engine, key.privateKey);
      const lines = readFileSync(join(run.dir, "claims.jsonl"), "utf8").split("\n");
      assert.equal(lines.pop(), "", "one line per claim, each ended");
      const claims = lines.map((l) => JSON.parse(l));
      assert.ok(claims.some((c) => c.basis === "observed" && c.findings.length > 0 && c.findings[0].quotes.length > 0), "an observed claim followed to its quotes");
      assert.deepEqual(claims, JSON.parse(JSON.stringify(run.claims.claims)));
      const answer = readFileSync(join(run.dir, "answer.md"), "utf8");
      assert.deepEqual([...answer.matchAll(/^- \[(c\d+)\] /gm)].map((m) => m[1]), run.claims.claims.map((c) => c.id));
    });
  });
}
