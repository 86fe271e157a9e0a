import path from "node:path";
import type { Database } from "../../db/index.ts";

/** Where PostgreSQL-backed hosts (and stores with no folder, such as PGlite in memory) keep workspaces. */
export const DEFAULT_WORKSPACE_ROOT = ".ariadne/workspaces";

/**
 * Where a host keeps executors' working folders (`<root>/<runId>/<executorId>/`):
 * the configured root when there is one, else beside the embedded store
 * (`<data dir>/workspaces`, so one folder holds a PGlite run's log and files),
 * else `.ariadne/workspaces` in the working directory.
 */
export function workspaceRootFor(database: Pick<Database, "engine" | "location">, configured?: string): string {
  if (configured) return path.resolve(configured);
  // PGlite's location is "pglite:<data dir>" (db/openDatabase.ts); "memory://" has no folder.
  const dataDir = database.engine === "pglite" ? database.location.replace(/^pglite:/, "") : "";
  if (dataDir && !dataDir.includes("://")) return path.resolve(dataDir, "workspaces");
  return path.resolve(DEFAULT_WORKSPACE_ROOT);
}
