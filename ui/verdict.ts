import { GENESIS_HASH } from "../events/hashChain.ts";
import { rootHashOf } from "../events/rootHash.ts";
import { currentHeads, describeProblem, finalityProblems, lastSeal, referenceProblems, sealProblems } from "../events/runProblems.ts";
import { runStreamId } from "../events/streamIds.ts";
import type { RecordedEvent } from "../events/types.ts";

/** What the page's banner says about the run's log. */
export interface Verdict {
  intact: boolean;
  /** The first problem found; null when intact. */
  problem: string | null;
  /** What was checked, and by whom: a page cannot vouch for the files beside it. */
  checked: string;
  /** The sealed root hash (null: no seal). */
  rootHash: string | null;
  /** The fingerprint of the key that signed the seal (null: unsigned or no seal). */
  keyId: string | null;
}

/**
 * The banner of a bundle's page, from the events alone (pure, so verify
 * re-derives the page): each stream's links (versions 1..n, each prevHash the
 * hash before it), the references between streams, and the seal against the
 * heads. The events are upcast, so hashes are not recomputed here: that is
 * `ariadne verify DIR`'s job, over the stored lines.
 */
export function verdictFromEvents(runId: string, events: readonly RecordedEvent[]): Verdict {
  const byStream = new Map<string, RecordedEvent[]>();
  for (const e of events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
  const problems: string[] = [];
  for (const [streamId, stream] of byStream) {
    let prev = GENESIS_HASH;
    stream.toSorted((a, b) => a.streamVersion - b.streamVersion).forEach((e, i) => {
      if (e.streamVersion !== i + 1 || e.prevHash !== prev) problems.push(`${streamId} v${e.streamVersion}: does not link to the event before it`);
      prev = e.hash;
    });
  }
  problems.push(...referenceProblems(byStream).map(describeProblem));
  const seal = lastSeal(byStream.get(runStreamId(runId)) ?? []);
  if (!seal) problems.push(`${runStreamId(runId)}: the run has no seal`);
  else {
    const heads = currentHeads([...byStream].map(([streamId, s]) => ({ streamId, version: s.at(-1)!.streamVersion, hash: s.at(-1)!.hash })));
    problems.push(...sealProblems(seal, heads, byStream).map(describeProblem), ...finalityProblems(byStream).map(describeProblem));
    if (rootHashOf(heads) !== seal.data.rootHash) problems.push(`the streams' heads hash to ${rootHashOf(heads)}, not the sealed root ${seal.data.rootHash}`);
  }
  return {
    intact: problems.length === 0 && events.length > 0,
    problem: problems[0] ?? (events.length ? null : "the run has no events"),
    checked: "links, references between streams and the seal, from the bundle's events.jsonl; check the files themselves with `ariadne verify DIR --key PUB`",
    rootHash: seal?.data.rootHash ?? null,
    keyId: seal?.data.signature?.keyId ?? null,
  };
}
