import { createHash } from "node:crypto";
import { readFile, readdir, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type Database, migrateToLatest } from "../../db/index.ts";
import { pgliteDatabase } from "../../db/openDatabase.ts";

const MIGRATIONS = new URL("../../migrations/", import.meta.url);

/**
 * A migrated in-memory PGlite for a test process. A new PGlite runs initdb
 * inside its WASM (about 6-9 s of CPU, measured); loading a data directory
 * dumped once after the migrations costs about 2 s. The dump is kept in the
 * temp directory under a key of the migrations' text and PGlite's version, so
 * it is rebuilt whenever either changes, and written by rename so processes
 * starting together never read half of one.
 */
export async function openMigratedPglite(): Promise<Database> {
  const file = join(tmpdir(), `ariadne-test-pglite-${await templateKey()}.tar`);
  const dump = await readFile(file).catch(() => null);
  if (dump) {
    const pglite = new PGlite({ loadDataDir: new Blob([dump]) });
    await pglite.waitReady;
    const database = pgliteDatabase(pglite, "pglite:memory://");
    await migrateToLatest(database); // nothing to do unless the key missed a change
    return database;
  }
  const pglite = new PGlite();
  await pglite.waitReady;
  const database = pgliteDatabase(pglite, "pglite:memory://");
  await migrateToLatest(database);
  const fresh = Buffer.from(await (await pglite.dumpDataDir("none")).arrayBuffer());
  // pid and a random part: Deno's --parallel runs test files as workers of one process.
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.partial`;
  await writeFile(partial, fresh);
  await rename(partial, file);
  return database;
}

async function templateKey(): Promise<string> {
  const hash = createHash("sha256");
  const pkg = JSON.parse(await readFile(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url), "utf8")) as { version: string };
  hash.update(`pglite ${pkg.version}\n`);
  for (const name of (await readdir(MIGRATIONS)).sort()) hash.update(name).update(await readFile(new URL(name, MIGRATIONS)));
  return hash.digest("hex").slice(0, 16);
}
