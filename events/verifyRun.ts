import type { KeyObject } from "node:crypto";
import type { Database } from "../db/openDatabase.ts";
import { blobProblems } from "./blobProblems.ts";
import { quoteProblems } from "./quoteProblems.ts";
import { type SealSignatureCheck, checkSealSignature } from "./checkSealSignature.ts";
import { type RunProblem, type StreamFound, inspectRun, problemAt } from "./inspectRun.ts";
import { type StreamHead, rootHashOf } from "./rootHash.ts";
import { isExecutorStream, runStreamId } from "./runStreams.ts";
import type { RecordedEvent } from "./types.ts";

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
export async function verifyRun(database: Database, runId: string, options: { expectedRoot?: string; publicKey?: KeyObject | null } = {}): Promise<RunVerification> {
  const inspection = await inspectRun(database, runId);
  const problems = [...inspection.problems];
  const heads = currentHeads(inspection.streams);
  const rootHash = rootHashOf(heads);
  const seal = lastSeal(inspection.events.get(runStreamId(runId)) ?? []);
  if (seal) problems.push(...sealProblems(seal, heads, inspection.events));
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

/** One line for a problem: where, then what. */
export function describeProblem(p: RunProblem): string {
  const where = p.streamVersion === null ? p.streamId : `${p.streamId} v${p.streamVersion}`;
  const event = p.eventId ? ` (event ${p.eventId} at position ${p.globalPosition})` : "";
  return `${where}${event}: ${p.reason}`;
}

export function currentHeads(streams: readonly StreamFound[]): StreamHead[] {
  return streams.filter((s) => isExecutorStream(s.streamId) && s.hash !== null).map((s) => ({ streamId: s.streamId, version: s.version, hash: s.hash! }));
}

/** Main's final event (settled, failed, cancelled), if it has one: after it the run's host seals the run. */
function mainEnded(events: Map<string, RecordedEvent[]>): RecordedEvent | undefined {
  for (const stream of events.values()) {
    if (stream[0]?.type !== "executor_admitted" || (stream[0] as RecordedEvent<"executor_admitted">).data.role !== "main") continue;
    return stream.find((e) => e.type === "settled" || e.type === "failed" || e.type === "cancelled");
  }
  return undefined;
}

function lastSeal(runStream: readonly RecordedEvent[]): RecordedEvent<"run_sealed"> | undefined {
  return runStream.findLast((e): e is RecordedEvent<"run_sealed"> => e.type === "run_sealed");
}

/** Differences between the sealed heads and the heads now, each at the first event it concerns. */
function sealProblems(seal: RecordedEvent<"run_sealed">, heads: readonly StreamHead[], events: Map<string, RecordedEvent[]>): RunProblem[] {
  const problems: RunProblem[] = [];
  const sealedBy = `run_sealed ${seal.eventId}`;
  if (rootHashOf(seal.data.heads) !== seal.data.rootHash) {
    problems.push(problemAt(seal, "the seal's root hash does not match the heads it lists"));
  }
  const now = new Map(heads.map((h) => [h.streamId, h]));
  for (const sealed of seal.data.heads) {
    const head = now.get(sealed.streamId);
    const stream = events.get(sealed.streamId) ?? [];
    const gone = (reason: string): RunProblem => ({ streamId: sealed.streamId, streamVersion: (head?.version ?? 0) + 1, eventId: null, globalPosition: null, reason });
    if (!head) problems.push(gone(`sealed at version ${sealed.version} (${sealedBy}) but the stream is missing`));
    else if (head.version < sealed.version) {
      problems.push(gone(`sealed at version ${sealed.version} (${sealedBy}) but only ${head.version} events remain: events after version ${head.version} are missing`));
    } else if (head.version > sealed.version) {
      const added = stream.find((e) => e.streamVersion === sealed.version + 1);
      problems.push(added ? problemAt(added, `appended after the run was sealed at version ${sealed.version} (${sealedBy})`) : gone(`moved past the sealed version ${sealed.version}`));
    } else if (head.hash !== sealed.hash) {
      const last = stream.at(-1);
      const reason = `head hash ${head.hash} differs from the sealed ${sealed.hash} (${sealedBy}): the stream was rewritten after the seal`;
      problems.push(last ? problemAt(last, reason) : gone(reason));
    }
  }
  const sealedIds = new Set(seal.data.heads.map((h) => h.streamId));
  for (const head of heads) {
    if (sealedIds.has(head.streamId)) continue;
    const first = events.get(head.streamId)?.[0];
    const reason = `not among the streams the run was sealed with (${sealedBy})`;
    problems.push(first ? problemAt(first, reason) : { streamId: head.streamId, streamVersion: 1, eventId: null, globalPosition: null, reason });
  }
  return problems;
}
