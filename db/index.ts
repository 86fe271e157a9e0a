export { type Database, type Engine, type OpenOptions, DEFAULT_DATA_DIR, openDatabase } from "./openDatabase.ts";
export { migrateToLatest, pendingMigrations } from "./migrate.ts";
export type { Schema } from "./schema.ts";
