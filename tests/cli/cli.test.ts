import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { ADMIN_URL, ENGINES, adminQuery as admin } from "../support/testDatabase.ts";
import { STACK_LINE, ariadne, closedPort, lines } from "./ariadneProcess.ts";

// Each command is a process of its own (about two seconds to start), so they run side by side.
describe("ariadne CLI", { concurrency: 4 }, () => {
  // A refused connection may be a restarting server, so a command waits ARIADNE_DATABASE_WAIT_MS
  // (issue 33): it says once that it waits, then gives up with one line naming the host and the cause.
  test("migrate against a closed port says it waits, then fails with one line naming the host and the cause", async () => {
    const port = await closedPort();
    const where = `127\\.0\\.0\\.1:${port}`;
    const { code, stdout, stderr } = await ariadne(["migrate"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/ariadne`, ARIADNE_DATABASE_WAIT_MS: "1000" });

    assert.notEqual(code, 0);
    assert.equal(stdout, "");
    const [waiting, gaveUp, ...rest] = lines(stderr);
    assert.deepEqual(rest, [], stderr);
    assert.match(waiting ?? "", new RegExp(`^ariadne: waiting for PostgreSQL at ${where}/ariadne \\(connection refused.*\\); giving up after 1 s$`));
    assert.match(gaveUp ?? "", new RegExp(`^ariadne: cannot reach PostgreSQL at ${where}/ariadne: connection refused`));
    assert.doesNotMatch(stderr, STACK_LINE);
  });

  test("migrate against an unknown host fails with one line naming the host and the cause", async () => {
    const { code, stderr } = await ariadne(["migrate"], { DATABASE_URL: "postgres://postgres@nohost.invalid:5432/ariadne" });

    assert.notEqual(code, 0);
    assert.equal(lines(stderr).length, 1, stderr);
    assert.match(stderr, /nohost\.invalid/);
    assert.match(stderr, /host not found/);
    assert.doesNotMatch(stderr, STACK_LINE);
  });

  test("a DATABASE_URL that is not a URL fails with one line saying what is expected", async () => {
    const { code, stderr } = await ariadne(["migrate"], { DATABASE_URL: "not a url" });

    assert.notEqual(code, 0);
    assert.equal(lines(stderr).length, 1, stderr);
    assert.match(stderr, /DATABASE_URL/);
    assert.doesNotMatch(stderr, STACK_LINE);
  });

  test("with ARIADNE_DEBUG=1 the failure comes with its stack", async () => {
    const port = await closedPort();
    const { code, stderr } = await ariadne(["migrate"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/ariadne`, ARIADNE_DEBUG: "1" });

    assert.notEqual(code, 0);
    assert.match(stderr, /connection refused/);
    assert.match(stderr, STACK_LINE);
  });

  test("an unknown command exits 2 with the usage", async () => {
    const { code, stderr } = await ariadne(["frobnicate"]);
    assert.equal(code, 2);
    assert.match(stderr, /unknown command "frobnicate"/);
    assert.match(stderr, /usage: ariadne/);
  });

  // Only where PostgreSQL is among the test engines (ARIADNE_TEST_ENGINES); always so in CI.
  if (ENGINES.includes("postgres")) describe("against PostgreSQL", () => {
    const name = `ariadne_test_${process.pid}_cli_${Math.random().toString(36).slice(2, 8)}`;
    const url = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
    before(() => admin(`CREATE DATABASE ${name}`));
    after(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

    test("migrate applies the migrations to an empty database, and again is a no-op", async () => {
      for (let i = 0; i < 2; i++) {
        const { code, stdout, stderr } = await ariadne(["migrate"], { DATABASE_URL: url });
        assert.equal(code, 0, stderr);
        assert.match(stdout, new RegExp(`migrations applied: postgres://127\\.0\\.0\\.1:\\d+/${name}`));
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT to_regclass('ariadne_events') IS NOT NULL AS ok");
        assert.equal(rows[0].ok, true);
      } finally {
        await client.end();
      }
    });
  });

  test("run --json on an embedded store in a fresh data dir prints JSON with a run id", { timeout: 120_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "ariadne-cli-"));
    try {
      const { code, stdout, stderr } = await ariadne(["run", "--json", "--data-dir", dataDir]);

      assert.equal(code, 0, stderr);
      const result = JSON.parse(stdout);
      assert.equal(typeof result.runId, "string");
      assert.ok(result.runId.length > 0);
      // A chain result, where the command reports one, must be intact.
      if (result.verified !== undefined) assert.equal(result.verified.ok, true);
      assert.ok((await readdir(dataDir)).length > 0, "the embedded store was not written to the data dir");
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
