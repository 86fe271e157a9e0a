import type { Migration, MigrationProvider } from "kysely/migration";
import * as eventLog from "./0001_event_log.ts";

/**
 * Migrations are listed in code rather than read from disk, so the same
 * provider works on Node, Deno and in bundles. Names sort in apply order.
 */
export const migrations: Record<string, Migration> = {
  "0001_event_log": eventLog,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
