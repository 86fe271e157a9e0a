import assert from "node:assert/strict";
import type { KeyObject } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportRun } from "../../bundle/exportRun.ts";
import type { Engine } from "../../db/index.ts";
import { createEventStore, sealRun } from "../../events/index.ts";
import { projectClaims } from "../../projections/claimChains.ts";
import type { RunClaims } from "../../projections/claimTypes.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { runtimeWith } from "../actors/fixtures.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";
import { openTestDatabase } from "../support/testDatabase.ts";

/** A fresh folder under the temp directory, removed when the test process exits. */
export function scratchDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `ariadne-bundle-${label}-`));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The offline etf-overlap run on one engine, settled, sealed with `key` and
 * exported to a new folder; then the database is closed (PGlite) or dropped
 * (PostgreSQL), so whatever is checked afterwards cannot reach it. `claims`
 * is the run's provenance as `ariadne audit` reads it from the store.
 */
export async function exportedRun(engine: Engine, key: KeyObject): Promise<{ runId: string; dir: string; mainExecutorId: string; claims: RunClaims }> {
  const db = await openTestDatabase(engine);
  try {
    const store = createEventStore(db.database);
    const runtime = runtimeWith(store, { main: offlineResearchModel(), child: offlineResearchModel() }, await scenarioHosting(db.database));
    const handle = await runtime.startRun(OFFLINE_QUESTION);
    assert.equal((await handle.result).kind, "answer");
    const run = { runId: handle.runId, mainExecutorId: handle.mainExecutorId };
    const dir = join(scratchDir(engine), "bundle");
    // Before its host seals it, a run that ended is not intact, and no bundle is written.
    await assert.rejects(exportRun(db.database, run.runId, dir, key), /^AriadneError: run \S+ is not intact, so it is not exported: .*Main ended \(settled\) but the run has no seal/);
    assert.equal(existsSync(dir), false);
    await sealRun(store, run, { signingKey: key });
    await exportRun(db.database, run.runId, dir, key);
    return { ...run, dir, claims: await projectClaims(store, run.runId) };
  } finally {
    await db.dispose();
  }
}
