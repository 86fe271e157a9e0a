import pg from "pg";
import { type Database, type Engine, migrateToLatest, openDatabase } from "../../db/index.ts";

/** Where tests create their throwaway PostgreSQL databases; trust auth on 127.0.0.1 by default. */
export const ADMIN_URL = process.env.ARIADNE_TEST_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export const ENGINES: readonly Engine[] = (process.env.ARIADNE_TEST_ENGINES?.split(",") as Engine[] | undefined) ?? [
  "postgres",
  "pglite",
];

export interface TestDatabase {
  database: Database;
  /** Set on PostgreSQL: the URL of this test's own database. */
  url?: string;
  dispose(): Promise<void>;
}

let pglite: Promise<Database> | undefined;
let pgliteUsers = 0;

/**
 * A migrated database for one test file. PostgreSQL: a fresh database, dropped
 * at dispose. PGlite: one in-memory instance per process (it costs seconds and
 * ~1 GB to start), so tests on it use their own stream and run ids.
 */
export async function openTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === "pglite") {
    pglite ??= openDatabase({ dataDir: "memory://" }).then(async (d) => {
      await migrateToLatest(d);
      return d;
    });
    const database = await pglite;
    pgliteUsers++;
    return {
      database,
      // Closed when its last user is done: an open PGlite keeps the process alive.
      async dispose() {
        if (--pgliteUsers === 0) await closeSharedPglite();
      },
    };
  }
  const name = `ariadne_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({ url: url.toString() });
  await migrateToLatest(database);
  return {
    database,
    url: url.toString(),
    async dispose() {
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Closes the shared PGlite instance; call once at the end of a test process. */
export async function closeSharedPglite(): Promise<void> {
  if (pglite) await (await pglite).close();
  pglite = undefined;
}

/** Runs one statement as the admin user (CREATE / DROP DATABASE). */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
