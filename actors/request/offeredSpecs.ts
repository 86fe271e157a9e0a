import { z } from "zod";
import { canonicalJson, immutableCanonical } from "../../core/canonicalJson.ts";
import type { ToolSpec } from "../../models/types.ts";
import { sha256Hex } from "../../sources/sha256.ts";
import type { BlobStore } from "../../sources/types.ts";

/**
 * What an executor's model was offered at admission: its system prompt and the
 * specs of every tool it was offered (hosted tools, delegate, its terminal
 * tool), before the per-turn narrowing (narrowToolSpecs.ts). Recorded as a
 * blob of its canonical JSON, named by sha256 in `executor_admitted.offered`:
 * executors offered the same set share one blob, so a run stores each
 * distinct set once. Requests are rebuilt from it, never from today's tools
 * and profile files.
 */
export interface Offered {
  system: string;
  tools: ToolSpec[];
  /**
   * The provider's server tools sent in place of offered specs of the same name (Anthropic's web_search
   * with its options, ARIADNE_SEARCH=anthropic); absent when none. Recorded for the audit: the request
   * (and its digest) holds the spec, the model adapter sends this.
   */
  serverTools?: ServerTool[];
}

/** A server tool as the provider takes it: the name of the spec it replaces, its type and options. */
export type ServerTool = { name: string; type: string } & Record<string, unknown>;

const OfferedSchema = z.object({
  system: z.string(),
  tools: z.array(z.looseObject({ name: z.string().min(1), description: z.string(), input_schema: z.record(z.string(), z.unknown()) })),
  serverTools: z.array(z.looseObject({ name: z.string().min(1), type: z.string().min(1) })).optional(),
});

/**
 * The recorded form: canonical JSON (RFC 8785), so the same set is the same bytes and the same hash. The
 * same bytes as canonicalJson(offered), with each spec's text kept (specs are never mutated once built), so
 * an admission offered the host's specs again does not write them out again.
 */
export function offeredBytes(offered: Offered): Uint8Array {
  const server = offered.serverTools ? `"serverTools":${canonicalJson(offered.serverTools)},` : "";
  return new TextEncoder().encode(`{${server}"system":${canonicalJson(offered.system)},"tools":[${offered.tools.map(immutableCanonical).join(",")}]}`);
}

/** Stores what was offered (once per distinct set) and returns the sha256 the admission records. */
export async function recordOffered(blobs: BlobStore, offered: Offered): Promise<string> {
  const bytes = offeredBytes(offered);
  const sha256 = sha256Hex(bytes);
  await putOnce(blobs, bytes, sha256);
  remember(blobs, sha256, offered);
  return sha256;
}

/**
 * Puts bytes in the blob store unless this process has put or read them there
 * before: blobs are write-once and never deleted (migration 0010), so an
 * admission offered a set already stored costs no round trip.
 */
export async function putOnce(blobs: BlobStore, bytes: Uint8Array, sha256 = sha256Hex(bytes)): Promise<void> {
  let known = stored.get(blobs);
  if (!known) stored.set(blobs, (known = new Set()));
  if (known.has(sha256)) return;
  await blobs.put(bytes);
  if (known.size >= 4096) known.clear();
  known.add(sha256);
}

const stored = new WeakMap<BlobStore, Set<string>>();

/** What the model was offered was changed or lost after it was recorded; a rebuild from it would be a guess. */
export class OfferedUnreadableError extends Error {
  readonly code = "OFFERED_UNREADABLE";
  constructor(
    readonly executorId: string,
    readonly sha256: string,
    why: string,
  ) {
    super(`what executor ${executorId} was offered at admission (blob ${sha256}, its system prompt and tool specs) ${why}`);
    this.name = "OfferedUnreadableError";
  }
}

/**
 * What an executor was offered, read back by its hash and checked against it:
 * a blob missing, or whose bytes no longer hash to its name, is refused naming
 * both. Parsed sets are kept per blob store (content-addressed: the same hash
 * is the same set), shared and never mutated.
 */
export async function readOffered(blobs: BlobStore, sha256: string, executorId: string): Promise<Offered> {
  const known = kept.get(blobs)?.get(sha256);
  if (known) return known;
  const bytes = await blobs.get(sha256);
  if (!bytes) throw new OfferedUnreadableError(executorId, sha256, "is missing from the blob store");
  if (sha256Hex(bytes) !== sha256) throw new OfferedUnreadableError(executorId, sha256, `was changed: its stored bytes no longer hash to ${sha256}`);
  const parsed = OfferedSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  if (!parsed.success) throw new OfferedUnreadableError(executorId, sha256, `is not a system prompt and tool specs: ${parsed.error.message}`);
  const offered = parsed.data as Offered;
  remember(blobs, sha256, offered);
  return offered;
}

const kept = new WeakMap<BlobStore, Map<string, Offered>>();

function remember(blobs: BlobStore, sha256: string, offered: Offered): void {
  let byHash = kept.get(blobs);
  if (!byHash) kept.set(blobs, (byHash = new Map()));
  if (byHash.size >= 256) byHash.clear();
  byHash.set(sha256, offered);
}
