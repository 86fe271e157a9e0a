import type { Database } from "../db/openDatabase.ts";
import { createDatabaseBlobStore } from "../db/sourceBlobs.ts";
import type { BlobStore } from "../sources/types.ts";

/** The blobs a run's sources and artifacts name, read through the store's table (an export copies them out). */
export const runBlobs = (database: Database): Pick<BlobStore, "get"> => createDatabaseBlobStore(database.db);
