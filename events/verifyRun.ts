import type { KeyObject } from "node:crypto";
import type { Database } from "../db/openDatabase.ts";
import { blobProblems } from "./blobProblems.ts";
import { quoteProblems } from "./quoteProblems.ts";
import { type SealSignatureCheck, checkSealSignature } from "./checkSealSignature.ts";
import { type RunInspection, type RunProblem, type StreamFound, inspectRun } from "./inspectRun.ts";
import { rootHashOf } from "./rootHash.ts";
import { currentHeads, finalityProblems, lastSeal, mainEnded, problemAt, sealProblems } from "./runProblems.ts";
import { runStreamId } from "./streamIds.ts";

export { currentHeads, describeProblem } from "./runProblems.ts";

export interface RunVerification {
  ok: boolean;
  runId: string;
  /** Every stream checked, with its last stored version and hash. */
  streams: StreamFound[];
  events: number;
  /** The root hash over the executor streams' heads as they are now. */
  rootHash: string;
  /** The last seal recorded for the run, if any. */
  sealed: { eventId: string; rootHash: string } | null;
  /** What can be said of the seal's signature (null: no seal): checked only against a configured public key. */
  signature: SealSignatureCheck | null;
  /** The first entry is the first bad event; empty when the run is intact. */
  problems: RunProblem[];
}

/**
 * Verifies a whole run: every stream's chain, the references between streams
 * (inspectRun), and, when the run was sealed, that the executor streams are
 * exactly the ones sealed, at the sealed heads: a rewound head, a deleted or
 * added stream, an event appended after the seal are all named. With
 * `expectedRoot` (the root printed with the answer), a rewritten seal is found
 * too. Every blob the run's tool outcomes name (sources, artifacts) must be
 * stored and hash to its name, and every quote of a handoff must be in the
 * text of a blob its tool call read, at its recorded offsets. A run whose Main ended is sealed by its host, so an ended run without a
 * seal is not intact (a forger removes the seal rather than sign one). With
 * `publicKey` (held outside the database) the seal must be signed by it: an
 * unsigned seal, or one signed by another key, is not intact. Throws
 * NotFoundError for an unknown run, DamagedStoreError when the store cannot be
 * read back.
 */
export async function verifyRun(database: Database, runId: string, options: VerifyRunOptions = {}): Promise<RunVerification> {
  return verifyInspection(database, await inspectRun(database, runId), options);
}

export interface VerifyRunOptions {
  expectedRoot?: string;
  publicKey?: KeyObject | null;
}

/** verifyRun over a run already read (an export writes the very rows it verified). */
export async function verifyInspection(database: Database, inspection: RunInspection, options: VerifyRunOptions = {}): Promise<RunVerification> {
  const runId = inspection.runId;
  const problems = [...inspection.problems];
  const heads = currentHeads(inspection.streams);
  const rootHash = rootHashOf(heads);
  const seal = lastSeal(inspection.events.get(runStreamId(runId)) ?? []);
  if (seal) problems.push(...sealProblems(seal, heads, inspection.events), ...finalityProblems(inspection.events));
  problems.push(...(await blobProblems(database, inspection.events)));
  problems.push(...(await quoteProblems(database, inspection.events)));
  const ended = seal ? undefined : mainEnded(inspection.events);
  if (ended) {
    problems.push(problemAt(ended, `Main ended (${ended.type}) but the run has no seal: its run_sealed was removed, or its host stopped before sealing (a resume seals it)`));
  }
  const signature = seal ? checkSealSignature({ runId, rootHash: seal.data.rootHash, signature: seal.data.signature }, options.publicKey ?? null) : null;
  if (seal && signature?.state === "invalid") problems.push(problemAt(seal, signature.reason));
  if (options.expectedRoot !== undefined && options.expectedRoot !== rootHash) {
    problems.push({
      streamId: runStreamId(runId),
      streamVersion: seal?.streamVersion ?? null,
      eventId: seal?.eventId ?? null,
      globalPosition: seal?.globalPosition ?? null,
      reason: `the run's root hash is ${rootHash}, not the expected ${options.expectedRoot}`,
    });
  }
  return {
    ok: problems.length === 0,
    runId,
    streams: inspection.streams,
    events: inspection.streams.reduce((n, s) => n + s.count, 0),
    rootHash,
    sealed: seal ? { eventId: seal.eventId, rootHash: seal.data.rootHash } : null,
    signature,
    problems,
  };
}

