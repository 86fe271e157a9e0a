import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type CliStore, ariadne, cliStore, closedPort, lines } from "../cli/ariadneProcess.ts";
import { copyOf } from "./forger.ts";

describe("ariadne export RUN DIR, then ariadne verify DIR with the database gone", () => {
  let store: CliStore;
  let runId: string;
  let root: string;
  let dir: string;
  let keys: { key: string; pub: string; fingerprint: string };
  /** Where verify is pointed once the run's database is dropped: a port nothing listens on. */
  let noDatabase: Record<string, string>;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "ariadne-bundle-cli-"));
    const made = await ariadne(["keys", "signing", "create", "--out", join(root, "keys")]);
    assert.equal(made.code, 0, made.stderr);
    keys = { key: join(root, "keys/seal.key"), pub: join(root, "keys/seal.pub"), fingerprint: /fingerprint .*: ([0-9a-f]{64})/.exec(made.stdout)![1] };
    store = await cliStore("bundlecli");
    const run = await ariadne(["run", "--json", ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: keys.key });
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;
    dir = join(root, "bundle");
  });
  after(async () => {
    await store?.dispose();
    rmSync(root, { recursive: true, force: true });
  });

  test("export writes the bundle and says how to verify it; a second export into it, or one without a key, is bad usage", async () => {
    const exported = await ariadne(["export", runId, dir, ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: keys.key });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, new RegExp(`^run ${runId} exported to ${dir}: \\d+ events in \\d+ streams, \\d+ blobs, \\d+ files · root hash [0-9a-f]{64}$`, "m"));
    const again = await ariadne(["export", runId, dir, ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: keys.key });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /^ariadne: .*bundle exists and is not empty: export into a new directory$/m);
    const unsigned = await ariadne(["export", runId, join(root, "unsigned"), ...store.args], store.env);
    assert.equal(unsigned.code, 2);
    assert.match(unsigned.stderr, /no signing key is configured: run `ariadne keys signing create`/);
    assert.equal(existsSync(join(root, "unsigned")), false);
    const unknown = await ariadne(["export", "no-such-run", join(root, "unknown"), ...store.args], { ...store.env, ARIADNE_SIGNING_KEY: keys.key });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no run no-such-run/);

    // From here on there is no database: the run's own is dropped, and DATABASE_URL names a port nothing answers.
    await store.dispose();
    noDatabase = { DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/gone` };
  });

  test("verify DIR --key PUB: intact, the signature verified, exit 0", async () => {
    const r = await ariadne(["verify", dir, "--key", keys.pub], noDatabase);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const [first, second] = lines(r.stdout);
    assert.match(first, new RegExp(`^bundle ${dir}: intact · run ${runId} · \\d+ streams, \\d+ events, \\d+ blobs, \\d+ files · root hash [0-9a-f]{64}$`));
    assert.equal(second, `manifest signed by key ${keys.fingerprint}: signature verified`);
  });

  test("verify DIR without a key never says intact: structure intact, authenticity not checked, exit 4; the signature NOT checked", async () => {
    const r = await ariadne(["verify", dir], noDatabase);
    assert.equal(r.code, 4, r.stdout + r.stderr);
    assert.match(lines(r.stdout)[0]!, new RegExp(`^bundle ${dir}: structure intact, authenticity not checked: pass --key`));
    assert.doesNotMatch(r.stdout, /: intact/);
    assert.match(r.stdout, /^manifest signature NOT checked: no public key was given \(--key PUB\)/m);
  });

  test("--claim follows an observed claim to its sources; an unknown claim is bad usage", async () => {
    const r = await ariadne(["verify", dir, "--key", keys.pub, "--claim", "c1"], noDatabase);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^claim c1 \(observed\): /m);
    assert.match(r.stdout, /^ {2}finding \d+ of \S+ \(handoff event \S+\): /m);
    assert.match(r.stdout, /^ {6}source \S+ retrieved at \S+: raw [0-9a-f]{64}, text [0-9a-f]{64}$/m);
    const unknown = await ariadne(["verify", dir, "--claim", "c99"], noDatabase);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^ariadne: --claim c99: run \S+ has no claim c99: its claims are c1…c\d+ \(see answer\.md or claims\.jsonl\)$/m);
  });

  test("--json reports the whole verification", async () => {
    const r = await ariadne(["verify", dir, "--key", keys.pub, "--json"], noDatabase);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.ok, true);
    assert.equal(report.runId, runId);
    assert.equal(report.firstProblem, null);
    assert.deepEqual(report.signature, { state: "valid", keyId: keys.fingerprint });
  });

  test("a changed derived file: exit 1, one line naming it", async () => {
    const copy = copyOf(dir, "cli");
    // Same length, so it is the file's hash, not its size, that gives it away.
    const answer = readFileSync(join(copy, "answer.md"), "utf8");
    assert.match(answer, /0\.29%/);
    writeFileSync(join(copy, "answer.md"), answer.replace("0.29%", "0.19%"));
    const r = await ariadne(["verify", copy, "--key", keys.pub], noDatabase);
    assert.equal(r.code, 1);
    assert.match(lines(r.stdout)[0], new RegExp(`^bundle ${copy}: NOT intact: answer\\.md: its sha256 is [0-9a-f]{64}, but manifest\\.json lists [0-9a-f]{64}: the file was changed \\(and \\d+ more problems?\\)$`));
  });

  test("a hostile bundle's text reaches the terminal escaped: a file named with escape sequences is named, not acted on", async () => {
    const copy = copyOf(dir, "escapes");
    writeFileSync(join(copy, "x\u001b[2J\u001b]0;pwned\u0007\rFAKE intact \u009b31m"), "planted");
    const r = await ariadne(["verify", copy, "--key", keys.pub], noDatabase);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, "no control character reaches the terminal");
    assert.match(r.stdout, /x\\u001b\[2J/, "the planted file is named, escaped");
  });

  test("bad usage exits 2 in one line: a key that cannot be read, --claim on a run id, a missing bundle, two targets", async () => {
    const missing = await ariadne(["verify", dir, "--key", join(root, "nope.pub")], noDatabase);
    assert.equal(missing.code, 2);
    assert.equal(lines(missing.stderr).length, 1);
    assert.match(missing.stderr, /--key \S+nope\.pub: cannot be read \(ENOENT\)/);
    const notKey = await ariadne(["verify", dir, "--key", join(dir, "manifest.json")], noDatabase);
    assert.equal(notKey.code, 2);
    assert.match(notKey.stderr, /not an Ed25519 public key/);
    const claimOnRun = await ariadne(["verify", runId, "--claim", "c1"], noDatabase);
    assert.equal(claimOnRun.code, 2);
    assert.match(claimOnRun.stderr, /--claim and --refetch verify a bundle directory/);
    const gone = await ariadne(["verify", join(root, "no-such-bundle")], noDatabase);
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /^ariadne: verify: \S+no-such-bundle is not a directory, so not a bundle/m);
    const two = await ariadne(["verify", dir, dir], noDatabase);
    assert.equal(two.code, 2);
    assert.match(two.stderr, /^ariadne: verify takes one run id or bundle directory, got 2$/m);
  });
});
