import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { type Database, type Engine, migrateToLatest, openDatabase } from "../db/index.ts";
import { pgliteDatabase } from "../db/openDatabase.ts";
import { DEFAULT_ADMIN_URL, createScratchDatabase } from "../db/scratchDatabase.ts";
import { type EventStore, createEventStore } from "../events/index.ts";

/** The server settings that decide what a commit costs, as one "name=setting ..." line (column s): printed by every bench on PostgreSQL. */
export const SERVER_SETTINGS_SQL = `SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) AS s FROM pg_settings
  WHERE name IN ('server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'autovacuum')`;

/** One SQL statement in its own implicit transaction, on one connection of its own. */
export type RawQuery = (text: string, params: unknown[]) => Promise<unknown>;

/** A migrated store, and raw connections to the same database that bypass Kysely and the store. */
export interface AppendTarget {
  engine: Engine;
  store: EventStore;
  /** A raw connection for one writer; PGlite has only one, shared. */
  rawConnection(): Promise<RawQuery>;
  /** Server settings that decide what a commit costs. */
  describe: string;
  close(): Promise<void>;
}

const ADMIN_URL = process.env.ARIADNE_BENCH_ADMIN_URL ?? DEFAULT_ADMIN_URL;

/** A fresh database, dropped at close. Raw connections are plain pg.Clients. */
export async function openPostgresTarget(poolSize: number): Promise<AppendTarget> {
  const scratch = await createScratchDatabase(`ariadne_bench_append_${process.pid}`, ADMIN_URL);
  const url = scratch.url;
  const clients: pg.Client[] = [];
  let database: Database | undefined;
  const close = async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => {})));
    await database?.close().catch(() => {});
    await scratch.drop();
  };
  try {
    database = await openDatabase({ url, poolSize });
    await migrateToLatest(database);
    const rawConnection = async (): Promise<RawQuery> => {
      const client = new pg.Client({ connectionString: url });
      clients.push(client);
      await client.connect();
      return (text, params) => client.query(text, params);
    };
    const settings = await (await rawConnection())(
      SERVER_SETTINGS_SQL,
      [],
    );
    return {
      engine: "postgres",
      store: createEventStore(database),
      rawConnection,
      describe: `postgres ${(settings as pg.QueryResult<{ s: string }>).rows[0].s}, pool ${poolSize}`,
      close,
    };
  } catch (e) {
    await close().catch(() => {});
    throw e;
  }
}

/** In-memory PGlite, opened here so the raw inserts can use this instance's own query(). */
export async function openPgliteTarget(): Promise<AppendTarget> {
  const pglite = new PGlite();
  await pglite.waitReady;
  const database = pgliteDatabase(pglite, "pglite:memory://");
  await migrateToLatest(database);
  const raw: RawQuery = (text, params) => pglite.query(text, params);
  const version = await pglite.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  return {
    engine: "pglite",
    store: createEventStore(database),
    rawConnection: async () => raw,
    describe: `pglite memory:// server_version=${version.rows[0].v} (in-process WASM, one connection, no fsync)`,
    close: () => database.close(),
  };
}

