import { createRequire } from "node:module";
import { DEFAULT_DATA_DIR, openDatabase } from "../db/openDatabase.ts";
import type { Prerequisite } from "./prerequisites.ts";

/**
 * The store a command would open: PostgreSQL at DATABASE_URL, asked to answer
 * (opened and closed, one connection, no migration), or the embedded PGlite
 * store, which needs no server (its folder is created on first use).
 */
export async function databasePrerequisite(url: string | undefined, dataDir: string = DEFAULT_DATA_DIR): Promise<Prerequisite> {
  if (!url) {
    let found = true;
    try {
      createRequire(import.meta.url).resolve("@electric-sql/pglite");
    } catch {
      found = false;
    }
    return {
      name: "database",
      found,
      detail: found ? `the embedded PGlite store at ${dataDir} (DATABASE_URL is unset; no server needed)` : "the npm package @electric-sql/pglite is not installed",
      neededFor: "every command that reads or writes runs",
      install: "npm ci",
    };
  }
  try {
    // A diagnosis asks whether it answers now: no outage wait (ARIADNE_DATABASE_WAIT_MS is for commands that need it).
    const database = await openDatabase({ url, poolSize: 1, wait: { ms: 0, atOpenMs: 0, log: () => {} } });
    const location = database.location;
    await database.close();
    return { name: "database", found: true, detail: `PostgreSQL at ${location} answers (DATABASE_URL)`, neededFor: "every command that reads or writes runs", install: "" };
  } catch (e) {
    return {
      name: "database",
      found: false,
      detail: (e as Error).message,
      neededFor: "every command that reads or writes runs",
      install: "start PostgreSQL there (e.g. sudo pg_ctlcluster 15 main start), fix DATABASE_URL, or unset it to use the embedded store",
    };
  }
}
