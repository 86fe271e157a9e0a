import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Engine, migrateToLatest } from "../db/index.ts";
import { SERVER_SETTINGS_SQL } from "./appendTargets.ts";
import { openStore } from "../events/openStore.ts";
import { pgliteDatabase } from "../db/openDatabase.ts";
import { DEFAULT_ADMIN_URL, createScratchDatabase } from "../db/scratchDatabase.ts";
import { type EventStore, createEventStore } from "../events/index.ts";

/** One SQL statement in its own implicit transaction, through the engine's own client. */
export type RawQuery = (text: string, params?: unknown[]) => Promise<unknown>;

export interface BenchEngine {
  engine: Engine;
  store: EventStore;
  /** A separate path to the same database that bypasses Kysely and the event store. */
  raw: RawQuery;
  /** PostgreSQL: the scratch database's URL (the capacity bench's floor opens its own pool on it). */
  url?: string;
  /** Server settings that decide what a commit costs, for the report. */
  describe: string;
  close(): Promise<void>;
}

export const ADMIN_URL = process.env.ARIADNE_BENCH_ADMIN_URL ?? DEFAULT_ADMIN_URL;

/** A fresh database ariadne_bench_<pid>, migrated through openStore; dropped WITH (FORCE) at close. */
export async function openBenchPostgres(): Promise<BenchEngine> {
  const scratch = await createScratchDatabase(`ariadne_bench_${process.pid}`, ADMIN_URL);
  const url = new URL(scratch.url);
  let opened: Awaited<ReturnType<typeof openStore>> | undefined;
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    opened = await openStore({ url: url.toString() });
    await client.connect();
    const settings = await client.query<{ s: string }>(SERVER_SETTINGS_SQL);
    const { store, close } = opened;
    return {
      engine: "postgres",
      store,
      raw: (text, params) => client.query(text, params as unknown[]),
      url: url.toString(),
      describe: `postgres ${settings.rows[0]!.s}, pool 10`,
      async close() {
        await client.end().catch(() => {});
        await close().catch(() => {});
        await scratch.drop();
      },
    };
  } catch (e) {
    await client.end().catch(() => {});
    await opened?.close().catch(() => {});
    await scratch.drop().catch(() => {});
    throw e;
  }
}

/**
 * An in-memory PGlite store (what openStore builds for dataDir "memory://"),
 * opened here so the raw floor can use the same instance's query() directly.
 */
export async function openBenchPglite(): Promise<BenchEngine> {
  const pglite = new PGlite();
  await pglite.waitReady;
  const database = pgliteDatabase(pglite, "pglite:memory://");
  try {
    await migrateToLatest(database);
    const version = await pglite.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    return {
      engine: "pglite",
      store: createEventStore(database),
      raw: (text, params) => pglite.query(text, params as unknown[]),
      describe: `pglite memory:// (server_version=${version.rows[0]?.v}, in-process WASM, no fsync)`,
      close: () => database.close(),
    };
  } catch (e) {
    await database.close().catch(() => {});
    throw e;
  }
}

