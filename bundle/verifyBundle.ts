import { Buffer } from "node:buffer";
import type { KeyObject } from "node:crypto";
import { relative, resolve, sep } from "node:path";
import { canonicalJson } from "../core/canonicalJson.ts";
import { type SealSignatureCheck, checkSealSignature } from "../events/checkSealSignature.ts";
import { rootHashOf } from "../events/rootHash.ts";
import { currentHeads, describeProblem, finalityProblems, lastSeal, referenceProblems, sealProblems } from "../events/runProblems.ts";
import { quoteProblemsIn, quotedBlobs } from "../events/quoteProblemsIn.ts";
import { runStreamId } from "../events/streamIds.ts";
import type { RecordedEvent } from "../events/types.ts";
import { namedBlobs } from "../events/namedBlobs.ts";
import type { BundleRun } from "./bundleRun.ts";
import { type ClaimCheck, checkClaim, claimFor, receivedBy } from "./checkClaim.ts";
import { claimsOf } from "./claimsOf.ts";
import { readEventLines } from "./checkEvents.ts";
import { fileProblems, parseManifest } from "./checkManifest.ts";
import { checkEnvelope } from "./dsse.ts";
import { deriveFiles } from "./derived/index.ts";
import { BLOBS_DIR, EVENTS_FILE, MANIFEST_FILE, type Manifest, SIGNATURE_FILE, type Statement, blobPath } from "./layout.ts";
import { predicateOf, sha256Of } from "./manifest.ts";
import { listBundleFiles, readIfPresent } from "./readBundleDir.ts";

/**
 * This file and what it imports read the bundle's files only: no database, no
 * network (tests/bundle/verifyImports.test.ts holds it to that).
 */

export type ManifestSignature =
  | { state: "valid"; keyId: string }
  | { state: "unchecked"; keyIds: string[]; reason: string }
  | { state: "invalid"; reason: string };

export interface BundleVerification {
  ok: boolean;
  dir: string;
  runId: string | null;
  counts: { events: number; streams: number; blobs: number; files: number };
  rootHash: string | null;
  signature: ManifestSignature;
  /** The run_sealed event's own signature (null: no seal). */
  seal: SealSignatureCheck | null;
  claim: ClaimCheck | null;
  /** The first is the one named; empty when intact. */
  problems: string[];
  /** What was not checked, and why (a key inside the bundle, no key given). */
  notes: string[];
  /** The events read (for --refetch); not part of the report. */
  events: RecordedEvent[];
}

export interface VerifyBundleOptions {
  /** The publisher's public key, obtained out of band; null: the signature is reported, not checked. */
  publicKey: KeyObject | null;
  /** Where the key was read from: a key inside the bundle proves nothing. */
  publicKeyPath?: string;
  /** A claim of the answer (c1, c2, … as claims.jsonl and `ariadne audit` name it) to follow down to its blobs. */
  claim?: string;
  /** The root hash the user kept from the run's answer. */
  expectedRoot?: string;
}

/**
 * Verifies an exported bundle from its files alone: the manifest's signature
 * against the given key, every file against the manifest, every stream's chain
 * in events.jsonl, the references between streams, the seal and the root hash,
 * every named blob's bytes, and every derived file re-derived from the events.
 * A bundle with no events never verifies.
 */
export function verifyBundle(dir: string, options: VerifyBundleOptions): BundleVerification {
  const result: BundleVerification = {
    ok: false,
    dir,
    runId: null,
    counts: { events: 0, streams: 0, blobs: 0, files: 0 },
    rootHash: null,
    signature: { state: "invalid", reason: "not checked" },
    seal: null,
    claim: null,
    problems: [],
    notes: [],
    events: [],
  };
  const done = () => ({ ...result, ok: result.problems.length === 0 });
  const problems = result.problems;
  const { files: onDisk, odd } = listBundleFiles(dir);
  for (const path of odd) problems.push(`${path}: not a regular file (a link or device) inside the bundle`);

  const manifestBytes = readIfPresent(dir, MANIFEST_FILE);
  if (!manifestBytes) return problems.push(`${MANIFEST_FILE}: missing: this is not a bundle, or its manifest was removed`), done();
  const parsed = parseManifest(manifestBytes);
  if (!parsed.ok) return problems.push(parsed.reason), done();
  const manifest = parsed.manifest;
  result.runId = manifest.runId;
  result.rootHash = manifest.rootHash;

  const statement = checkSignature(dir, manifest, manifestBytes, options, result);
  problems.push(...fileProblems(dir, manifest, onDisk, [MANIFEST_FILE, SIGNATURE_FILE]));
  const keysInside = onDisk.filter((p) => /\.(pub|pem|key)$/.test(p) || /BEGIN [A-Z ]*KEY/.test(readIfPresent(dir, p)?.subarray(0, 4096).toString("latin1") ?? ""));
  for (const p of keysInside) result.notes.push(`${p}: a key inside the bundle proves nothing (whoever changed the bundle could have put it there); verify with the publisher's key, given with --key`);

  const eventsText = readIfPresent(dir, EVENTS_FILE)?.toString("utf8");
  if (eventsText === undefined) return problems.push(`${EVENTS_FILE}: missing: a bundle without its events proves nothing`), done();
  const read = readEventLines(eventsText, manifest.runId);
  problems.push(...read.problems);
  if (read.links.length === 0) problems.unshift(`${EVENTS_FILE}: holds no events: an empty bundle never verifies`);
  const events = read.events;
  result.events = events;
  result.counts.events = read.links.length;

  // Streams: as the manifest lists them, and as the events hold them.
  const byStream = new Map<string, RecordedEvent[]>();
  for (const e of events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
  const found = [...byStream].map(([streamId, s]) => ({ streamId, count: s.length, version: s.at(-1)!.streamVersion, hash: s.at(-1)!.hash }));
  result.counts.streams = found.length;
  const listed = new Map(manifest.streams.map((s) => [s.streamId, s]));
  for (const s of found) {
    const l = listed.get(s.streamId);
    if (!l) problems.push(`${s.streamId}: in events.jsonl but not among manifest.json's streams`);
    else if (l.version !== s.version || l.hash !== s.hash) problems.push(`${s.streamId}: manifest.json lists its head at v${l.version} ${l.hash}, but events.jsonl ends it at v${s.version} ${s.hash}`);
  }
  for (const l of manifest.streams) if (!byStream.has(l.streamId)) problems.push(`${l.streamId}: listed in manifest.json at v${l.version} but has no events in events.jsonl: the stream was dropped`);
  if (manifest.counts.events !== read.links.length) problems.push(`manifest.json: counts ${manifest.counts.events} events but events.jsonl holds ${read.links.length}`);

  problems.push(...(attempt(problems, "the references between streams cannot be read", () => referenceProblems(byStream).map(describeProblem)) ?? []));
  if (statement?.predicate && canonicalJson(statement.predicate) !== canonicalJson(predicateOf(manifest.runId, manifest.rootHash, manifest.ariadneVersion, events))) {
    problems.push(`${SIGNATURE_FILE}: the signed predicate's models, profiles or version differ from the admissions in events.jsonl`);
  }

  // The seal, and the root hash every copy of it must agree on.
  const seal = lastSeal(byStream.get(runStreamId(manifest.runId)) ?? []);
  const heads = currentHeads(found);
  const root = rootHashOf(heads);
  if (!seal) {
    if (read.links.length > 0) problems.push(`${runStreamId(manifest.runId)}: the run has no run_sealed event: the bundle commits to no root hash`);
  } else {
    problems.push(...sealProblems(seal, heads, byStream).map(describeProblem));
    problems.push(...(attempt(problems, "the run's end cannot be read", () => finalityProblems(byStream).map(describeProblem)) ?? []));
    if (seal.data.rootHash !== root) problems.push(`the root hash over events.jsonl's heads is ${root}, but the seal records ${seal.data.rootHash}`);
    if (seal.eventId !== manifest.sealEventId) problems.push(`manifest.json names seal ${manifest.sealEventId}, but the run's last run_sealed is ${seal.eventId}`);
    // A bundle's authenticity is the manifest's signature (over every file, events.jsonl included): a seal written
    // before the host had a key is unsigned, and the publisher's signature on the export vouches for it.
    result.seal = checkSealSignature({ runId: manifest.runId, rootHash: seal.data.rootHash, signature: seal.data.signature }, seal.data.signature ? options.publicKey : null);
    if (result.seal.state === "invalid") problems.push(describeProblem({ streamId: seal.streamId, streamVersion: seal.streamVersion, eventId: seal.eventId, globalPosition: seal.globalPosition, reason: result.seal.reason }));
  }
  if (manifest.rootHash !== root && read.links.length > 0) problems.push(`manifest.json: root hash ${manifest.rootHash}, but the heads in events.jsonl hash to ${root}`);
  if (options.expectedRoot !== undefined && options.expectedRoot !== root) problems.push(`the run's root hash is ${root}, not the expected ${options.expectedRoot}`);

  // Blobs: each one an event names is present and hashes to its name; none is there unnamed.
  const named = namedBlobs(events);
  const blobs = new Map<string, Uint8Array>();
  const present = new Map<string, Uint8Array>();
  for (const [sha256, { event, what }] of named) {
    const bytes = readIfPresent(dir, blobPath(sha256));
    const at = (reason: string) => describeProblem({ streamId: event.streamId, streamVersion: event.streamVersion, eventId: event.eventId, globalPosition: event.globalPosition, reason });
    if (bytes) present.set(sha256, bytes);
    if (!bytes) problems.push(at(`blob ${sha256} (${what}) is missing from ${BLOBS_DIR}/`));
    else if (sha256Of(bytes) !== sha256) problems.push(at(`blob ${sha256} (${what}) was changed: its bytes hash to ${sha256Of(bytes)}`));
    else blobs.set(sha256, bytes);
  }
  for (const path of onDisk.filter((p) => p.startsWith(`${BLOBS_DIR}/`))) if (!named.has(path.slice(BLOBS_DIR.length + 1))) problems.push(`${path}: a blob no event of the run names`);
  result.counts.blobs = blobs.size;

  // Every handoff quote against its blob, as verify RUN checks it: read from the bytes there even when
  // they no longer hash right, so a blob changed under a quote is named for the quote too.
  const decoder = new TextDecoder();
  const texts = new Map([...quotedBlobs(byStream)].map((sha256) => [sha256, present.has(sha256) ? decoder.decode(present.get(sha256)) : null]));
  problems.push(...(attempt(problems, "the handoffs' quotes cannot be read", () => quoteProblemsIn(byStream, texts).map(describeProblem)) ?? []));

  // Derived files: re-derived from the events and blobs, byte for byte.
  const run: BundleRun = { runId: manifest.runId, events, blob: (sha256) => blobs.get(sha256) ?? null };
  const derived = attempt(problems, "the derived files cannot be re-derived from events.jsonl", () => deriveFiles(run)) ?? new Map<string, Uint8Array>();
  for (const [path, bytes] of derived) {
    const onFile = readIfPresent(dir, path);
    if (!onFile) problems.push(`${path}: a derived file the events call for is missing`);
    else if (!onFile.equals(bytes)) problems.push(`${path}: differs from what events.jsonl derives: the derived file drifted from the log`);
  }
  const truth = (p: string) => p === EVENTS_FILE || p === MANIFEST_FILE || p === SIGNATURE_FILE || p.startsWith(`${BLOBS_DIR}/`);
  for (const path of onDisk) if (!truth(path) && !derived.has(path)) problems.push(`${path}: not derived from the events, nor part of the record`);
  // As the manifest counts them: every file but the manifest and its signature.
  result.counts.files = onDisk.filter((p) => p !== MANIFEST_FILE && p !== SIGNATURE_FILE).length;

  // Every claim of the answer, as the provenance projection follows it, down to its blobs; --claim also prints one chain.
  const claims = attempt(problems, "the answer's claims cannot be followed", () => claimsOf(run));
  const received = claims ? receivedBy(claims, events) : new Set<string>();
  for (const claim of claims?.claims ?? []) {
    problems.push(...(attempt(problems, `claim ${claim.id} cannot be followed`, () => checkClaim(claim, received, run.blob).problems) ?? []));
  }
  if (options.claim !== undefined) result.claim = checkClaim(claimFor(claims ?? { runId: manifest.runId, answer: null, claims: [] }, options.claim), received, run.blob);
  return done();
}

/**
 * A check over events a forger may have shaped to make the reader throw: the
 * throw is a problem named like any other, never a crash that hides the rest.
 */
function attempt<T>(problems: string[], what: string, check: () => T): T | undefined {
  try {
    return check();
  } catch (e) {
    problems.push(`${what}: ${(e as Error).message}`);
    return undefined;
  }
}

/** The DSSE envelope: its signature against the given key, its statement against the manifest's bytes and contents. */
function checkSignature(dir: string, manifest: Manifest, manifestBytes: Buffer, options: VerifyBundleOptions, result: BundleVerification): Partial<Statement> | null {
  const raw = readIfPresent(dir, SIGNATURE_FILE);
  if (!raw) {
    result.signature = { state: "invalid", reason: `${SIGNATURE_FILE}: missing: the manifest is not signed` };
    result.problems.push(result.signature.reason);
    return null;
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(raw.toString("utf8"));
  } catch {
    envelope = null;
  }
  const inside = options.publicKeyPath !== undefined && isInside(dir, options.publicKeyPath);
  const check = checkEnvelope(envelope, inside ? null : options.publicKey);
  if (check.state === "invalid") {
    result.signature = check;
    result.problems.push(check.reason);
    return null;
  }
  if (check.state === "valid") result.signature = { state: "valid", keyId: check.keyId };
  else {
    const reason = inside
      ? `the key given (${options.publicKeyPath}) is inside the bundle, and a key found inside the bundle proves nothing`
      : "no public key was given (--key PUB): anyone who changed the bundle could have re-signed it";
    result.signature = { state: "unchecked", keyIds: check.keyIds, reason };
    result.notes.push(`manifest signature NOT checked: ${reason}`);
  }
  let statement: Partial<Statement>;
  try {
    statement = JSON.parse(check.payload.toString("utf8"));
  } catch {
    result.problems.push(`${SIGNATURE_FILE}: its payload is not a JSON statement`);
    return null;
  }
  const digest = statement.subject?.find((s) => s.name === MANIFEST_FILE)?.digest?.sha256;
  const actual = sha256Of(manifestBytes);
  if (digest !== actual) result.problems.push(`${MANIFEST_FILE}: its sha256 is ${actual}, but the signed statement names ${digest ?? "no manifest"}: the manifest was changed after it was signed`);
  if (statement.predicate?.runId !== manifest.runId || statement.predicate?.rootHash !== manifest.rootHash) {
    result.problems.push(`${SIGNATURE_FILE}: the signed statement is for run ${statement.predicate?.runId} with root ${statement.predicate?.rootHash}, not the manifest's run ${manifest.runId} with root ${manifest.rootHash}`);
  }
  return statement;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep) && !rel.includes(`..${sep}`);
}
