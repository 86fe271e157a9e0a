import type { KeyObject } from "node:crypto";
import { AriadneError, isConcurrencyError } from "../core/errors.ts";
import { keyFingerprint } from "../core/keyFingerprint.ts";
import type { EventStore } from "./eventStore.ts";
import { inspectRun } from "./inspectRun.ts";
import { type StreamHead, rootHashOf, sortHeads } from "./rootHash.ts";
import { runStreamId } from "./runStreams.ts";
import { signSeal } from "./signSeal.ts";
import type { RecordedEvent } from "./types.ts";
import { currentHeads, describeProblem } from "./verifyRun.ts";

export interface RunSeal {
  rootHash: string;
  heads: StreamHead[];
  /** The run_sealed event (an earlier one when the heads have not moved since). */
  eventId: string;
}

/** Other writers (leases, run state) share the run stream: a stale version is re-read this many times. */
const ATTEMPTS = 5;

/**
 * Records a `run_sealed` event in the run's stream (`run-<runId>`, created if
 * absent): the root hash over every executor stream's head, computed from the
 * events as verified, so the root printed with an answer commits to all of
 * them. A run that does not verify is refused, never sealed over. Sealing again
 * with nothing changed returns the existing seal (signed by the same key, when
 * one is given). With `signingKey` (Ed25519, held outside the database) the
 * seal carries its signature of the run id and root hash.
 */
export async function sealRun(store: EventStore, run: { runId: string; mainExecutorId: string }, options: { signingKey?: KeyObject } = {}): Promise<RunSeal> {
  const inspection = await inspectRun(store.database, run.runId);
  if (inspection.problems.length > 0) {
    throw new AriadneError("RUN_NOT_INTACT", 409, `run ${run.runId} cannot be sealed: ${describeProblem(inspection.problems[0])}`);
  }
  const heads = sortHeads(currentHeads(inspection.streams));
  const rootHash = rootHashOf(heads);
  const streamId = runStreamId(run.runId);
  const previous = inspection.events.get(streamId)?.findLast((e): e is RecordedEvent<"run_sealed"> => e.type === "run_sealed");
  const keyId = options.signingKey ? keyFingerprint(options.signingKey) : undefined;
  if (previous?.data.rootHash === rootHash && previous.data.signature?.keyId === keyId) return { rootHash, heads, eventId: previous.eventId };
  const signature = options.signingKey ? signSeal(options.signingKey, run.runId, rootHash) : undefined;

  for (let attempt = 1; ; attempt++) {
    const version = await store.streamVersion(streamId, run.runId);
    try {
      const { events } = await store.append(streamId, version, [
        { type: "run_sealed", data: { rootHash, heads, ...(signature && { signature }) }, metadata: { runId: run.runId, executorId: run.mainExecutorId } },
      ]);
      return { rootHash, heads, eventId: events[0].eventId };
    } catch (e) {
      if (!isConcurrencyError(e) || attempt === ATTEMPTS) throw e;
    }
  }
}
