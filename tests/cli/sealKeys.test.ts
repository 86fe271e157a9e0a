import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createPublicKey } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ariadne, cliStore, type CliStore, lines } from "./ariadneProcess.ts";

describe("seal signing keys on the command line", () => {
  let dir: string;
  let store: CliStore;
  let runId: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ariadne-seal-keys-"));
    store = await cliStore("sealkeys");
  });
  after(async () => {
    await store?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test("keys signing create writes a 0600 private key and the public key, printing the key and its fingerprint (sha256 of the raw key)", async () => {
    const r = await ariadne(["keys", "signing", "create", "--out", join(dir, "ours")]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await stat(join(dir, "ours", "seal.key"))).mode & 0o777, 0o600);
    const pem = await readFile(join(dir, "ours", "seal.pub"), "utf8");
    assert.ok(r.stdout.includes(pem.trim()), "the public key is printed");
    const raw = (createPublicKey(pem).export({ type: "spki", format: "der" }) as Buffer).subarray(12);
    assert.match(r.stdout, new RegExp(`fingerprint \\(sha256 of the raw public key\\): ${createHash("sha256").update(raw).digest("hex")}`));
    const again = await ariadne(["keys", "signing", "create", "--out", join(dir, "ours")]);
    assert.equal(again.code, 1, "an existing key is never overwritten");
    assert.equal((await ariadne(["keys", "signing", "create", "--out", join(dir, "theirs")])).code, 0);
  });

  test("a run hosted with ARIADNE_SIGNING_KEY is sealed signed: verify --key checks it, verify without a key says it did not", async () => {
    const run = await ariadne(["run", "--json", ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: join(dir, "ours", "seal.key") });
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;

    const checked = await ariadne(["verify", runId, "--key", join(dir, "ours", "seal.pub"), ...store.args], store.env);
    assert.equal(checked.code, 0, checked.stdout + checked.stderr);
    assert.match(lines(checked.stdout)[1], /^seal signed by key [0-9a-f]{64}: signature verified$/);

    const unchecked = await ariadne(["verify", runId, ...store.args], store.env);
    assert.equal(unchecked.code, 4, "a signed seal not checked is never called intact");
    assert.match(unchecked.stdout, /^run \S+: structure intact, authenticity not checked: pass --key/);
    assert.match(unchecked.stdout, /NOT checked, no public key configured/);
  });

  test("verify against another key (ARIADNE_SIGNING_PUBLIC_KEY) is not intact, exit 1", async () => {
    const r = await ariadne(["verify", runId, ...store.args], { ...store.env, ARIADNE_SIGNING_PUBLIC_KEY: join(dir, "theirs", "seal.pub") });
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /NOT intact: .*the seal is signed by key [0-9a-f]{64}, not by the configured key [0-9a-f]{64}/);
  });

  test("a run hosted without a key is sealed unsigned: verify says so in a clear line, and with a key configured it is not intact", async () => {
    const run = await ariadne(["run", "--json", ...store.args], store.env);
    assert.equal(run.code, 0, run.stderr);
    const id = JSON.parse(run.stdout).runId;
    const plain = await ariadne(["verify", id, ...store.args], store.env);
    assert.equal(plain.code, 4);
    assert.match(plain.stdout, /^seal unsigned: /m);
    const keyed = await ariadne(["verify", id, "--key", join(dir, "ours", "seal.pub"), ...store.args], store.env);
    assert.equal(keyed.code, 1);
    assert.match(keyed.stdout, /the seal is not signed, but seals are checked against key/);
  });
});
