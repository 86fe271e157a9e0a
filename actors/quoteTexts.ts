import { asArray, asRecord } from "../handoff/rawShape.ts";
import type { BlobStore } from "../sources/types.ts";
import type { ExecutorState } from "./fold/executorState.ts";
import type { RoleRecord } from "./request/roles.ts";

/**
 * The stored text a handoff's quotes may come from: each blob of each tool
 * call a quote cites (its sources' text, its artifacts), read from the run's
 * blob store so the pure decision can check the quotes verbatim. A blob not
 * stored is left out, and a quote that needs it is refused as unchecked.
 */
export async function quoteTexts(blobs: BlobStore | undefined, s: Pick<ExecutorState, "toolResults">, candidate: unknown): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  if (!blobs) return texts;
  const cited = new Set<string>();
  for (const f of asArray(asRecord(candidate).findings)) {
    for (const q of asArray(asRecord(asRecord(f).evidence).quotes)) {
      const id = asRecord(q).toolUseId;
      if (typeof id === "string") cited.add(id.trim());
    }
  }
  const decoder = new TextDecoder();
  for (const id of cited) {
    for (const { sha256 } of s.toolResults[id]?.quotable ?? []) {
      if (texts.has(sha256)) continue;
      const bytes = await blobs.get(sha256);
      if (bytes) texts.set(sha256, decoder.decode(bytes));
    }
  }
  return texts;
}

/** For a role that hands off (or answers with its own evidence): the stored text the quotes of this candidate cite (decide checks them verbatim). */
export async function quotedTexts(
  role: Pick<RoleRecord, "ownEvidence" | "resultName">,
  blobs: BlobStore | undefined,
  s: Pick<ExecutorState, "toolResults">,
  candidate: unknown,
): Promise<ReadonlyMap<string, string> | undefined> {
  const quoting = role.ownEvidence ? (candidate as { evidence?: unknown } | null)?.evidence : role.resultName === "handoff" ? candidate : undefined;
  if (quoting === undefined) return undefined;
  return quoteTexts(blobs, s, quoting);
}
