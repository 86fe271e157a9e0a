import { Buffer } from "node:buffer";
import type { KeyObject } from "node:crypto";
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { makeDirs } from "../core/makeDirs.ts";
import { dirname, join, resolve } from "node:path";
import { AriadneError } from "../core/errors.ts";
import type { ChainLink } from "../events/hashChain.ts";
import type { RecordedEvent } from "../events/types.ts";
import type { BundleRun } from "./bundleRun.ts";
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "./dsse.ts";
import { deriveFiles } from "./derived/index.ts";
import { eventLine } from "./eventLines.ts";
import { EVENTS_FILE, MANIFEST_FILE, type Manifest, SIGNATURE_FILE, ariadneVersion, blobPath } from "./layout.ts";
import { buildManifest, manifestBytes, predicateOf, statementBytes, statementOf } from "./manifest.ts";

export interface BundleContents {
  runId: string;
  /** Every event of the run as stored, in log order. */
  links: readonly ChainLink[];
  /** The same events parsed (and upcast), in the same order. */
  events: readonly RecordedEvent[];
  rootHash: string;
  sealEventId: string;
  /** The blobs the events name, by sha256. */
  blobs: ReadonlyMap<string, Uint8Array>;
}

/**
 * Writes a bundle: events.jsonl, blobs/sha256/<hash>, the derived files, the
 * manifest over all of them and its signed statement. It is written beside DIR
 * and renamed into place, so DIR is either absent or a whole bundle. DIR must
 * not exist, or be an empty directory.
 */
export function writeBundle(dir: string, contents: BundleContents, signingKey: KeyObject): Manifest {
  const target = resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0) throw new AriadneError("USAGE", 400, `${dir} exists and is not empty: export into a new directory`);
  const files = new Map<string, Uint8Array>();
  files.set(EVENTS_FILE, Buffer.from(contents.links.map((l) => `${eventLine(l)}\n`).join(""), "utf8"));
  for (const [sha256, bytes] of contents.blobs) files.set(blobPath(sha256), bytes);
  const run: BundleRun = { runId: contents.runId, events: contents.events, blob: (sha256) => contents.blobs.get(sha256) ?? null };
  for (const [path, bytes] of deriveFiles(run)) files.set(path, bytes);

  const version = ariadneVersion();
  const manifest = buildManifest({ runId: contents.runId, ariadneVersion: version, rootHash: contents.rootHash, sealEventId: contents.sealEventId, streams: headsOf(contents.links), events: contents.links.length, files });
  const manifestText = manifestBytes(manifest);
  const statement = statementOf(manifestText, predicateOf(contents.runId, contents.rootHash, version, contents.events));
  const envelope = signEnvelope(IN_TOTO_PAYLOAD_TYPE, statementBytes(statement), signingKey);

  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  try {
    for (const [path, bytes] of files) writeInside(partial, path, bytes);
    writeInside(partial, MANIFEST_FILE, manifestText);
    writeInside(partial, SIGNATURE_FILE, Buffer.from(`${JSON.stringify(envelope, null, 2)}\n`, "utf8"));
    makeDirs(dirname(target));
    // rename(2) replaces an empty directory in one step.
    renameSync(partial, target);
  } catch (e) {
    rmSync(partial, { recursive: true, force: true });
    throw e;
  }
  return manifest;
}

function writeInside(root: string, path: string, bytes: Uint8Array) {
  const full = join(root, path);
  makeDirs(dirname(full));
  writeFileSync(full, bytes, { flag: "wx" });
}

/** Each stream's last version and hash, in the order the streams first appear in the log. */
export function headsOf(links: readonly ChainLink[]) {
  const heads = new Map<string, { streamId: string; version: number; hash: string }>();
  for (const l of links) heads.set(l.streamId, { streamId: l.streamId, version: l.streamVersion, hash: l.hash });
  return [...heads.values()];
}
