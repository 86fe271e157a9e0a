import type { Clock, IdGenerator } from "../core/clock.ts";
import { type EventStore, createEventStore } from "../events/eventStore.ts";
import { migrateToLatest } from "./migrate.ts";
import { type Database, type OpenOptions, openDatabase } from "./openDatabase.ts";

/**
 * Opens the configured engine (DATABASE_URL, else embedded PGlite), applies
 * pending migrations and returns the event store. The one start-up path.
 */
export async function openStore(
  options: OpenOptions & { clock?: Clock; newId?: IdGenerator } = {},
): Promise<{ store: EventStore; database: Database; close: () => Promise<void> }> {
  const database = await openDatabase(options);
  try {
    await migrateToLatest(database);
  } catch (e) {
    await database.close();
    throw e;
  }
  const store = createEventStore(database, options);
  return { store, database, close: () => database.close() };
}
