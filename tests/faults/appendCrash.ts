/**
 * A process that appends `turn` events one at a time to the stream
 * `executor-crash` (after what is there), printing "appended N" after each, so
 * a test can arm a commit boundary (ARIADNE_CRASH_AT=during_commit:turn:2) and
 * see what the log kept once the process died there:
 *   node --import tsx tests/faults/appendCrash.ts STREAM COUNT
 * env: DATABASE_URL, or FAULT_DATA_DIR for PGlite.
 */
import { armCrashPoint } from "../../core/crashPoint.ts";
import { openStore } from "../../events/openStore.ts";
import { turnEvent } from "../events/fixtures.ts";

armCrashPoint(process.env.ARIADNE_CRASH_AT);
const [stream, count] = [process.argv[2], Number(process.argv[3])];
const { store, close } = await openStore({ url: process.env.DATABASE_URL || undefined, dataDir: process.env.FAULT_DATA_DIR });
try {
  let version = await store.streamVersion(stream);
  for (let i = 0; i < count; i++) {
    version = (await store.append(stream, version, [turnEvent("crash-run", "crash", version + 1)])).nextExpectedVersion;
    console.log(`appended ${version}`);
  }
} finally {
  await close();
}
