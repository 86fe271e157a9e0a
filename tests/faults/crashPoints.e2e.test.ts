import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScratchDatabase, type ScratchDatabase } from "../../db/scratchDatabase.ts";
import { migrateToLatest, openDatabase } from "../../db/index.ts";
import { openStore } from "../../events/openStore.ts";
import { start } from "../runs/processes.ts";
import { ADMIN_URL } from "../support/testDatabase.ts";
import { bundled } from "./bundle.ts";
import { shareNote, shareOf } from "../support/testShare.ts";

/**
 * The store's commit boundaries, in a real process killed by SIGKILL at its
 * second append: before the call (nothing sent), inside the transaction (the
 * statement ran, the COMMIT never did: rolled back) and after the commit (kept).
 * Then the store reopens (PGlite recovers its data directory), verifies, and
 * the next process appends at the version the log says.
 */
const CASES = [
  { point: "before_commit:turn:2", kept: 1 },
  { point: "during_commit:turn:2", kept: 1 },
  { point: "after_commit:turn:2", kept: 2 },
] as const;

for (const [e, engine] of (["postgres", "pglite"] as const).entries()) {
  describe(`commit crash points (${engine}, SIGKILL)${shareNote()}`, () => {
    let scratch: ScratchDatabase | undefined;
    let dir = "";
    let script = "";
    before(async () => {
      script = await bundled("tests/faults/appendCrash.ts");
      dir = await mkdtemp(join(tmpdir(), "ariadne-crash-"));
      if (engine === "postgres") {
        scratch = await createScratchDatabase(`ariadne_crash_${process.pid}`, ADMIN_URL);
        const database = await openDatabase({ url: scratch.url });
        await migrateToLatest(database);
        await database.close();
      } else {
        // Created once (a new PGlite directory costs many seconds), shared by the cases: each has its stream.
        await (await openStore({ dataDir: join(dir, "data") })).close();
      }
    });
    after(async () => {
      await scratch?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    // Dealt between the Node lines, rotated per engine: each line meets every boundary on one engine.
    for (const [i, { point, kept }] of shareOf([...CASES.entries()], e)) {
      test(`${point}: the log keeps ${kept} of the process's appends, and the store goes on`, async () => {
        const stream = `executor-crash-${i}`;
        const target = engine === "postgres" ? { url: scratch!.url } : { dataDir: join(dir, "data") };
        const env = { DATABASE_URL: target.url ?? "", FAULT_DATA_DIR: target.dataDir ?? "", ARIADNE_CRASH_AT: point };
        const p = start([stream, "3"], env, script);
        assert.equal(await p.exited, "SIGKILL", p.output());
        const opened = await openStore(target);
        try {
          assert.equal(await opened.store.streamVersion(stream), kept, p.output());
          assert.ok((await opened.store.verify(stream)).ok);
        } finally {
          await opened.close();
        }
        // The next process appends after what the log kept.
        const again = start([stream, "1"], { ...env, ARIADNE_CRASH_AT: "" }, script);
        assert.equal(await again.exited, 0, again.output());
        assert.match(again.output(), new RegExp(`^appended ${kept + 1}$`, "m"));
      });
    }
  });
}
