import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonicalJson.ts";
import type { RecordedEvent } from "../events/types.ts";
import { type BundlePredicate, BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, BLOBS_DIR, MANIFEST_FILE, type Manifest, type ManifestStream, PREDICATE_TYPE, STATEMENT_TYPE, type Statement } from "./layout.ts";

export const sha256Of = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** The manifest over a bundle's files: every file with its size and sha256, each stream's head, the counts and the root hash. */
export function buildManifest(input: {
  runId: string;
  ariadneVersion: string;
  rootHash: string;
  sealEventId: string;
  streams: ManifestStream[];
  events: number;
  files: ReadonlyMap<string, Uint8Array>;
}): Manifest {
  const paths = [...input.files.keys()].sort();
  return {
    format: BUNDLE_FORMAT,
    formatVersion: BUNDLE_FORMAT_VERSION,
    runId: input.runId,
    ariadneVersion: input.ariadneVersion,
    rootHash: input.rootHash,
    sealEventId: input.sealEventId,
    counts: { events: input.events, streams: input.streams.length, blobs: paths.filter((p) => p.startsWith(`${BLOBS_DIR}/`)).length, files: paths.length },
    streams: input.streams,
    files: paths.map((path) => ({ path, size: input.files.get(path)!.byteLength, sha256: sha256Of(input.files.get(path)!) })),
  };
}

/** The manifest's bytes as written: pretty JSON for people; its sha256 is what the statement signs. */
export const manifestBytes = (manifest: Manifest) => Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, "utf8");

/** What the signature says about the run: read from its admissions, so a reader sees models and profiles without the log. */
export function predicateOf(runId: string, rootHash: string, ariadneVersion: string, events: readonly RecordedEvent[]): BundlePredicate {
  const admitted = events.filter((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted");
  return {
    runId,
    rootHash,
    models: admitted.map((e) => ({ executorId: e.metadata.executorId, role: e.data.role, model: e.data.model })),
    profiles: admitted.map((e) => ({ executorId: e.metadata.executorId, profile: e.data.profile })),
    ariadneVersion,
  };
}

/** The in-toto Statement v1 signed in manifest.sig.json: its one subject is manifest.json by sha256. */
export function statementOf(manifest: Uint8Array, predicate: BundlePredicate): Statement {
  return { _type: STATEMENT_TYPE, subject: [{ name: MANIFEST_FILE, digest: { sha256: sha256Of(manifest) } }], predicateType: PREDICATE_TYPE, predicate };
}

/** The statement's bytes as signed: RFC 8785, so anyone re-serialising it gets the same bytes. */
export const statementBytes = (statement: Statement) => Buffer.from(canonicalJson(statement)!, "utf8");
