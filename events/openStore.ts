import type { Clock, IdGenerator } from "../core/clock.ts";
import { type EventStore, createEventStore } from "./eventStore.ts";
import { checkConsistency } from "../db/checkConsistency.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../core/errors.ts";
import { migrateToLatest, pendingMigrations } from "../db/migrate.ts";
import { type StreamDamage, describeDamage, quarantine } from "../db/quarantine.ts";
import { DEFAULT_DATA_DIR, type Database, type OpenOptions, openDatabase } from "../db/openDatabase.ts";

/**
 * Opens the configured engine (DATABASE_URL, else embedded PGlite), applies
 * pending migrations, checks that the events can all be read back (a damaged
 * store is refused, never half-read; `consistencyCheck: false` skips that scan)
 * and returns the event store. The one start-up path. Streams that lost rows
 * quarantine their runs (db/quarantine.ts): reads of those runs are refused
 * naming the stream and version, every other run works; `onDamage` hears of
 * each (default: one line a run on stderr).
 */
export async function openStore(
  options: OpenOptions & {
    clock?: Clock;
    newId?: IdGenerator;
    consistencyCheck?: boolean;
    onDamage?: (line: string, damage: StreamDamage) => void;
    /** A command that only reads: no store is created (a missing embedded store is an error) and none is migrated. */
    readOnly?: boolean;
  } = {},
): Promise<{ store: EventStore; database: Database; close: () => Promise<void> }> {
  const dataDir = options.url ? undefined : (options.dataDir ?? DEFAULT_DATA_DIR);
  if (options.readOnly && dataDir && dataDir !== "memory://" && !existsSync(join(dataDir, "PG_VERSION"))) {
    throw new ConfigError(`no store at ${dataDir}: nothing was recorded there (run or submit creates one; check --data-dir or DATABASE_URL)`);
  }
  const database = await openDatabase(options);
  try {
    if (options.readOnly) {
      const pending = await pendingMigrations(database);
      if (pending.length) throw new ConfigError(`the store at ${database.location} needs ${pending.length} migration(s) first: run ariadne migrate`);
    } else await migrateToLatest(database);
    if (options.consistencyCheck !== false) {
      const found = await checkConsistency(database);
      quarantine(database, found);
      const say = options.onDamage ?? ((line) => console.error(`ariadne: ${line}`));
      const named = new Set<string>();
      for (const d of found) {
        if (named.has(d.runId)) continue;
        named.add(d.runId);
        say(`run ${d.runId} is quarantined: ${describeDamage(d)}; other runs are unaffected; restore the store from a backup to read it`, d);
      }
    }
  } catch (e) {
    await database.close();
    throw e;
  }
  const store = createEventStore(database, options);
  return { store, database, close: () => database.close() };
}
