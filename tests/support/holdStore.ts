// A process that holds an embedded store open, for the tests of the PGlite lock:
//   node --import tsx tests/support/holdStore.ts DATA_DIR
// Opens the store, appends one event to the stream `executor-held`, prints
// "ready <pid> <version>" and holds the store until its stdin ends; then closes it and exits 0.
import { openStore } from "../../events/openStore.ts";
import { turnEvent } from "../events/fixtures.ts";

const [dataDir] = process.argv.slice(2);
const { store, close } = await openStore({ dataDir });
const stream = "executor-held";
const version = await store.streamVersion(stream);
await store.append(stream, version, [turnEvent("held-run", "held", version + 1)]);
console.log(`ready ${process.pid} ${version + 1}`);
process.stdin.resume();
process.stdin.on("end", async () => {
  await close();
  process.exit(0);
});
