import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuntimeOptions } from "../../actors/index.ts";
import type { Database } from "../../db/index.ts";
import { offlineCorpus } from "../../runs/host/scenarioCorpus.ts";
import { runTools } from "../../runs/host/runTools.ts";
import { findScenario } from "../../scenarios/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";

let workspaces: string | undefined;

/** One folder of workspaces per test process, removed when it exits. */
function workspaceRoot(): string {
  if (!workspaces) {
    const dir = mkdtempSync(join(tmpdir(), "ariadne-scenario-ws-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    workspaces = dir;
  }
  return workspaces;
}

/**
 * What a Runtime built in a test needs to host a scenario's scripted model as
 * `ariadne run --scenario NAME` does: the run tools reaching the corpus server,
 * the database's blob store and a workspace root.
 */
export async function scenarioHosting(database: Database, name = "etf-overlap"): Promise<Pick<RuntimeOptions, "tools" | "blobs" | "workspaceRoot">> {
  const scenario = findScenario(name);
  if (!scenario) throw new Error(`no scenario ${name}`);
  const corpus = await offlineCorpus(scenario);
  return {
    tools: runTools({ web: { mapUrl: corpus.mapUrl, search: corpus.search } }),
    blobs: createDatabaseBlobStore(database.db),
    workspaceRoot: workspaceRoot(),
  };
}
