import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { writeBundle } from "../../bundle/writeBundle.ts";
import { scratchDir } from "./exportedRun.ts";

/** The audit guide's openssl block, as printed there: the test runs what a reader would paste. */
function readmeBlock(): string {
  const readme = readFileSync(new URL("../../docs/guides/audit-and-bundles.md", import.meta.url), "utf8");
  const start = readme.indexOf("# verify a bundle's signature with openssl");
  assert.ok(start > 0, "the audit guide shows the openssl command");
  return readme.slice(start, readme.indexOf("```", start));
}

const key = generateKeyPairSync("ed25519");
const other = generateKeyPairSync("ed25519");

/** A bundle written by the exporter's own writer (no events: only its signature is checked here) and a key file. */
function bundleAndKeys() {
  const root = scratchDir("openssl");
  const dir = join(root, "bundle");
  writeBundle(dir, { runId: "run-openssl", links: [], events: [], rootHash: "a".repeat(64), sealEventId: "e", blobs: new Map() }, key.privateKey);
  const ours = join(root, "seal.pub");
  const theirs = join(root, "other.pub");
  writeFileSync(ours, key.publicKey.export({ type: "spki", format: "pem" }) as string);
  writeFileSync(theirs, other.publicKey.export({ type: "spki", format: "pem" }) as string);
  return { dir, ours, theirs };
}

const run = (B: string, PUB: string) => spawnSync("bash", ["-eo", "pipefail", "-c", readmeBlock()], { env: { ...process.env, B, PUB }, encoding: "utf8" });

describe("the manifest's DSSE signature verifies with openssl, as the audit guide shows", () => {
  test("with the publisher's key: Signature Verified Successfully, and the statement names this manifest.json", () => {
    const { dir, ours } = bundleAndKeys();
    const r = run(dir, ours);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^Signature Verified Successfully$/m);
    assert.match(r.stdout, /^manifest\.json is the signed one$/m);
  });

  test("with another key openssl refuses the signature", () => {
    const { dir, theirs } = bundleAndKeys();
    const r = run(dir, theirs);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout + r.stderr, /Signature Verification Failure/);
  });

  test("a manifest.json changed after signing fails the subject check", () => {
    const { dir, ours } = bundleAndKeys();
    appendFileSync(join(dir, "manifest.json"), " ");
    const r = run(dir, ours);
    assert.notEqual(r.status, 0);
    assert.doesNotMatch(r.stdout, /is the signed one/);
  });
});
