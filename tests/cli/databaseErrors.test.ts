import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_URL, ENGINES } from "../support/testDatabase.ts";
import { STACK_LINE, ariadne, lines } from "./ariadneProcess.ts";

/** One line on stderr, exit 1, no stack. */
function assertOneLine(result: { code: number | null; stderr: string }, pattern: RegExp) {
  assert.equal(result.code, 1, result.stderr);
  assert.equal(lines(result.stderr).length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, STACK_LINE);
}

describe("database errors name the real cause in one line", { concurrency: 3 }, () => {
  test("a DATABASE_URL without host or database is refused, saying what is missing", async () => {
    assertOneLine(await ariadne(["migrate"], { DATABASE_URL: "postgres://" }), /^ariadne: DATABASE_URL "postgres:\/\/" names no host and no database name \(expected postgres:\/\/user@host:port\/db\)$/m);
    assertOneLine(await ariadne(["migrate"], { DATABASE_URL: "postgres://127.0.0.1:5432" }), /names no database name/);
    assertOneLine(await ariadne(["migrate"], { DATABASE_URL: "mysql://127.0.0.1/db" }), /is not a postgres:\/\/ URL/);
    // A password given in the URL is never printed back.
    const secret = await ariadne(["migrate"], { DATABASE_URL: "postgres://me:s3cret@127.0.0.1" });
    assertOneLine(secret, /names no database name/);
    assert.doesNotMatch(secret.stderr, /s3cret/);
  });

  if (ENGINES.includes("postgres")) {
    test("a role that does not exist is named as such, not as a refused authentication", async () => {
      const url = Object.assign(new URL(ADMIN_URL), { username: "no_such_role_h3" }).toString();
      assertOneLine(await ariadne(["migrate"], { DATABASE_URL: url }), /: role "no_such_role_h3" does not exist \(28000\)$/m);
    });

    test("a database that does not exist is named", async () => {
      const url = Object.assign(new URL(ADMIN_URL), { pathname: "/no_such_db_h3" }).toString();
      assertOneLine(await ariadne(["migrate"], { DATABASE_URL: url }), /: database "no_such_db_h3" does not exist \(3D000\)$/m);
    });
  }

  describe("an embedded store directory this process cannot write", () => {
    let parent: string;
    before(async () => {
      parent = await mkdtemp(join(tmpdir(), "ariadne-readonly-"));
      await chmod(parent, 0o555);
    });
    after(async () => {
      await chmod(parent, 0o755);
      await rm(parent, { recursive: true, force: true });
    });

    // Root may write anywhere, so the command runs without root's permission overrides (not as another
    // user, who could not reach a clone in root's home).
    const asUser = { unprivileged: true };

    test("is named with its cause, one line, exit 1, for the directory itself and for a missing one below it", async () => {
      assertOneLine(
        await ariadne(["migrate", "--data-dir", parent], {}, asUser),
        new RegExp(`^ariadne: cannot open the embedded store at ${parent}: it is not writable by this process: permission denied \\(EACCES\\)$`, "m"),
      );
      const below = join(parent, "data");
      assertOneLine(await ariadne(["migrate", "--data-dir", below], {}, asUser), new RegExp(`^ariadne: cannot open the embedded store at ${below}: .*permission denied \\(EACCES\\)$`, "m"));
    });
  });
});
