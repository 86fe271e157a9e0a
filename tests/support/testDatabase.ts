import { DEFAULT_ADMIN_URL, adminQuery as runAdminQuery, createScratchDatabase } from "../../db/scratchDatabase.ts";
import { type Database, type Engine, migrateToLatest, openDatabase } from "../../db/index.ts";
import { openMigratedPglite } from "./pgliteTemplate.ts";

/** Where tests create their throwaway PostgreSQL databases; trust auth on 127.0.0.1 by default. */
export const ADMIN_URL = process.env.ARIADNE_TEST_ADMIN_URL ?? DEFAULT_ADMIN_URL;

export const ENGINES: readonly Engine[] = (process.env.ARIADNE_TEST_ENGINES?.split(",") as Engine[] | undefined) ?? [
  "postgres",
  "pglite",
];

/**
 * The engines the engine-parametrised suites (forEachEngine) declare a lane for: ENGINES, narrowed by
 * ARIADNE_TEST_ENGINE_LANES. `npm test` deals the lanes between its two Node lines (PGlite on one,
 * PostgreSQL on the other) while every other suite still sees every engine of ENGINES (the CLI
 * suites keep their commands on PostgreSQL, where several may share a store at once).
 */
export const LANE_ENGINES: readonly Engine[] = process.env.ARIADNE_TEST_ENGINE_LANES
  ? ENGINES.filter((e) => process.env.ARIADNE_TEST_ENGINE_LANES!.split(",").includes(e))
  : ENGINES;

/**
 * The engines the engine matrices (forEachEngine suites not marked `endToEnd`) declare a lane for:
 * LANE_ENGINES, narrowed by ARIADNE_TEST_MATRIX_ENGINES. `npm run test:deno` sets it to postgres:
 * Deno is there to show the runtime works on Deno, and the Node lines already run every matrix on
 * both engines; the suites that run the runtime end to end (a server, a hosted run, a reconnecting
 * store, leases) keep both engines under Deno.
 */
export const MATRIX_ENGINES: readonly Engine[] = process.env.ARIADNE_TEST_MATRIX_ENGINES
  ? LANE_ENGINES.filter((e) => process.env.ARIADNE_TEST_MATRIX_ENGINES!.split(",").includes(e))
  : LANE_ENGINES;

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
    pglite ??= openMigratedPglite();
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
  const scratch = await createScratchDatabase(`ariadne_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`, ADMIN_URL);
  const database = await openDatabase({ url: scratch.url });
  await migrateToLatest(database);
  return {
    database,
    url: scratch.url,
    async dispose() {
      await database.close();
      await scratch.drop();
    },
  };
}

/** Closes the shared PGlite instance once its last user is done. */
async function closeSharedPglite(): Promise<void> {
  if (pglite) await (await pglite).close();
  pglite = undefined;
}

/** Runs one statement as the admin user (CREATE / DROP DATABASE). */
export const adminQuery = (text: string): Promise<void> => runAdminQuery(ADMIN_URL, text);
