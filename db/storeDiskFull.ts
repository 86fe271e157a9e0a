import { DiskFullError } from "../core/diskFull.ts";
import type { Database } from "./openDatabase.ts";

/** A full disk under this store, named as an operator finds it: the data directory, or the server. */
export function storeDiskFull(database: Database, detail: string, cause: unknown): DiskFullError {
  const where = database.engine === "pglite" ? database.location.replace(/^pglite:/, "") : `PostgreSQL ${database.location.replace(/^postgres:\/\//, "")}`;
  return new DiskFullError(where, detail, { cause });
}
