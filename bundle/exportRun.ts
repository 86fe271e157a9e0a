import type { KeyObject } from "node:crypto";
import { AriadneError } from "../core/errors.ts";
import type { Database } from "../db/openDatabase.ts";
import { inspectRun } from "../events/inspectRun.ts";
import { runBlobs } from "../events/runBlobs.ts";
import { runStreamId } from "../events/streamIds.ts";
import type { RecordedEvent } from "../events/types.ts";
import { describeProblem, verifyInspection } from "../events/verifyRun.ts";
import { rowToChainLink } from "../events/verifyStream.ts";
import { namedBlobs } from "../events/namedBlobs.ts";
import type { Manifest } from "./layout.ts";
import { writeBundle } from "./writeBundle.ts";

/**
 * `ariadne export RUN DIR`: the run read from the log, verified as `ariadne
 * verify RUN` does (a run that is not intact, or not sealed, is refused: a
 * bundle of a damaged log would only be signed damage), then written as a
 * bundle signed with `signingKey`.
 */
export async function exportRun(database: Database, runId: string, dir: string, signingKey: KeyObject): Promise<{ manifest: Manifest; dir: string }> {
  const inspection = await inspectRun(database, runId);
  const verification = await verifyInspection(database, inspection);
  if (!verification.ok) throw new AriadneError("RUN_NOT_INTACT", 409, `run ${runId} is not intact, so it is not exported: ${describeProblem(verification.problems[0])}`);
  const seal = inspection.events.get(runStreamId(runId))?.findLast((e): e is RecordedEvent<"run_sealed"> => e.type === "run_sealed");
  if (!seal) throw new AriadneError("RUN_NOT_SEALED", 409, `run ${runId} is not sealed: only a run that ended and was sealed is exported (ariadne resume RUN finishes and seals one whose host stopped)`);

  const byPosition = <T extends { globalPosition: number }>(a: T, b: T) => a.globalPosition - b.globalPosition;
  const links = [...inspection.rows.values()].flat().map(rowToChainLink).sort(byPosition);
  const events = [...inspection.events.values()].flat().sort(byPosition);
  const store = runBlobs(database);
  const blobs = new Map<string, Uint8Array>();
  for (const [sha256, { what }] of namedBlobs(events)) {
    const bytes = await store.get(sha256);
    // verifyInspection found every blob; one gone since is a store changed under the export.
    if (!bytes) throw new AriadneError("RUN_NOT_INTACT", 409, `run ${runId}: blob ${sha256} (${what}) is missing from the blob store`);
    blobs.set(sha256, bytes);
  }
  const manifest = writeBundle(dir, { runId, links, events, rootHash: seal.data.rootHash, sealEventId: seal.eventId, blobs }, signingKey);
  return { manifest, dir };
}
