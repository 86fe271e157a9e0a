import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../db/openDatabase.ts";
import { templateLocation } from "../../db/pgliteTemplate.ts";

/**
 * A fresh embedded store is a copy of the template (db/pgliteTemplate.ts), not
 * an initdb of its own: it carries the template's system identifier, which
 * initdb draws at random. `npm ci` made the template (build/prepare.ts); the
 * first test to open a store without one makes it.
 */
async function systemIdentifier(dataDir: string): Promise<string> {
  const database = await openDatabase({ dataDir });
  try {
    const { rows } = await sql<{ id: string }>`SELECT system_identifier::text AS id FROM pg_control_system()`.execute(database.db);
    return rows[0].id;
  } finally {
    await database.close();
  }
}

/** The template's, read from its control file (the first 8 bytes), so the shared template is never opened. */
function templateIdentifier(): string {
  return readFileSync(join(templateLocation().dir, "global", "pg_control")).readBigUInt64LE(0).toString();
}

function scratch(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), "ariadne-template-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a fresh embedded store is the template copied, and keeps what is written to it", async (t) => {
  const dataDir = join(scratch(t), "data");
  const copied = await systemIdentifier(dataDir);
  assert.equal(copied, templateIdentifier());

  const database = await openDatabase({ dataDir });
  await sql`CREATE TABLE kept (n int)`.execute(database.db);
  await sql`INSERT INTO kept VALUES (7)`.execute(database.db);
  await database.close();
  const again = await openDatabase({ dataDir });
  t.after(() => again.close());
  assert.deepEqual((await sql<{ n: number }>`SELECT n FROM kept`.execute(again.db)).rows, [{ n: 7 }]);
});

test("a copy cut short (no PG_VERSION yet) is no store: the next start copies the template again", async (t) => {
  const dataDir = join(scratch(t), "data");
  const { dir: template } = templateLocation();
  // As a full disk leaves it: some of the files, not PG_VERSION, which is copied last.
  cpSync(template, dataDir, { recursive: true, filter: (from) => !from.endsWith("PG_VERSION") && !from.includes(`${template}/base/`) });
  assert.equal(existsSync(join(dataDir, "PG_VERSION")), false);
  assert.equal(readdirSync(join(dataDir, "base")).length, 0);

  assert.equal(await systemIdentifier(dataDir), templateIdentifier());
  assert.ok(readdirSync(join(dataDir, "base")).length > 0);
});
