import assert from "node:assert/strict";
import type { KeyObject } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportRun } from "../../bundle/exportRun.ts";
import type { Engine } from "../../db/index.ts";
import { createEventStore, sealRun } from "../../events/index.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { runtimeWith } from "../actors/fixtures.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";
import { openTestDatabase } from "../support/testDatabase.ts";

/** A fresh folder under the temp directory for this test process. */
export const scratchDir = (label: string) => mkdtempSync(join(tmpdir(), `ariadne-bundle-${label}-`));

/**
 * The offline etf-overlap run on one engine, settled, sealed with `key` and
 * exported to a new folder; then the database is closed (PGlite) or dropped
 * (PostgreSQL), so whatever is checked afterwards cannot reach it.
 */
export async function exportedRun(engine: Engine, key: KeyObject): Promise<{ runId: string; dir: string; mainExecutorId: string }> {
  const db = await openTestDatabase(engine);
  try {
    const store = createEventStore(db.database);
    const runtime = runtimeWith(store, { main: offlineResearchModel(), child: offlineResearchModel() }, await scenarioHosting(db.database));
    const handle = await runtime.startRun(OFFLINE_QUESTION);
    assert.equal((await handle.result).kind, "answer");
    const run = { runId: handle.runId, mainExecutorId: handle.mainExecutorId };
    await sealRun(store, run, { signingKey: key });
    const dir = join(scratchDir(engine), "bundle");
    await exportRun(db.database, run.runId, dir, key);
    return { ...run, dir };
  } finally {
    await db.dispose();
  }
}
