import type { Clock, IdGenerator } from "../core/clock.ts";
import { type EventStore, createEventStore } from "./eventStore.ts";
import { checkConsistency } from "../db/checkConsistency.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { type Database, type OpenOptions, openDatabase } from "../db/openDatabase.ts";

/**
 * Opens the configured engine (DATABASE_URL, else embedded PGlite), applies
 * pending migrations, checks that the events can all be read back (a damaged
 * store is refused, never half-read; `consistencyCheck: false` skips that scan)
 * and returns the event store. The one start-up path.
 */
export async function openStore(
  options: OpenOptions & { clock?: Clock; newId?: IdGenerator; consistencyCheck?: boolean } = {},
): Promise<{ store: EventStore; database: Database; close: () => Promise<void> }> {
  const database = await openDatabase(options);
  try {
    await migrateToLatest(database);
    if (options.consistencyCheck !== false) await checkConsistency(database);
  } catch (e) {
    await database.close();
    throw e;
  }
  const store = createEventStore(database, options);
  return { store, database, close: () => database.close() };
}
