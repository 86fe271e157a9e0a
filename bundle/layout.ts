import { readFileSync } from "node:fs";

/** The files of a bundle that are the truth; everything else is derived from them or lists them. */
export const EVENTS_FILE = "events.jsonl";
export const BLOBS_DIR = "blobs/sha256";
export const MANIFEST_FILE = "manifest.json";
export const SIGNATURE_FILE = "manifest.sig.json";

/** What the manifest says it is, so a reader can tell a bundle from any other folder of JSON. */
export const BUNDLE_FORMAT = "ariadne-run-bundle";
export const BUNDLE_FORMAT_VERSION = 1;
/** The in-toto predicate type of the signed statement. */
export const PREDICATE_TYPE = "https://ariadne.invalid/run-bundle/v1";
export const STATEMENT_TYPE = "https://in-toto.io/Statement/v1";

export const blobPath = (sha256: string) => `${BLOBS_DIR}/${sha256}`;

/** The running Ariadne's version, from package.json: recorded in the signed predicate. */
export function ariadneVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

/** A file as the manifest lists it. */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface ManifestStream {
  streamId: string;
  /** Its last version (the number of its events) and that event's chain hash. */
  version: number;
  hash: string;
}

export interface Manifest {
  format: typeof BUNDLE_FORMAT;
  formatVersion: number;
  runId: string;
  ariadneVersion: string;
  /** The run's root hash (events/rootHash.ts) over its executor streams' heads, as sealed. */
  rootHash: string;
  /** The run_sealed event the root hash was read from. */
  sealEventId: string;
  counts: { events: number; streams: number; blobs: number; files: number };
  streams: ManifestStream[];
  /** Every file of the bundle but the manifest and its signature, by path. */
  files: ManifestFile[];
}

/** The signed in-toto statement's predicate: what a reader may rely on once the signature verifies. */
export interface BundlePredicate {
  runId: string;
  rootHash: string;
  /** Each executor's model, by executor id, as admitted. */
  models: { executorId: string; role: string; model: string }[];
  /** Each executor's Specialty Profile binding (null: none). */
  profiles: { executorId: string; profile: { id: string; version: string; sha256: string } | null }[];
  ariadneVersion: string;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: BundlePredicate;
}
