import type { KeyObject } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readEventLines } from "../../bundle/checkEvents.ts";
import { deriveFiles } from "../../bundle/derived/index.ts";
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "../../bundle/dsse.ts";
import { parseEventLine } from "../../bundle/eventLines.ts";
import type { Manifest, Statement } from "../../bundle/layout.ts";
import { buildManifest, manifestBytes, statementBytes, statementOf } from "../../bundle/manifest.ts";
import { listBundleFiles } from "../../bundle/readBundleDir.ts";
import { headsOf } from "../../bundle/writeBundle.ts";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { GENESIS_HASH, canonicalEvent, chainHash } from "../../events/hashChain.ts";
import { rootHashOf, sortHeads } from "../../events/rootHash.ts";
import { signSeal } from "../../events/signSeal.ts";
import { scratchDir } from "./exportedRun.ts";

/** A copy of a bundle to tamper with. */
export function copyOf(dir: string, label: string): string {
  const copy = join(scratchDir(label), "bundle");
  cpSync(dir, copy, { recursive: true });
  return copy;
}

export const read = (dir: string, path: string) => readFileSync(join(dir, path), "utf8");
export const write = (dir: string, path: string, text: string | Uint8Array) => writeFileSync(join(dir, path), text);
export const eventLines = (dir: string) => read(dir, "events.jsonl").split("\n").filter((l) => l !== "");
export const writeEventLines = (dir: string, lines: string[]) => write(dir, "events.jsonl", lines.map((l) => `${l}\n`).join(""));
export const lineOf = (line: string) => JSON.parse(line) as { streamId: string; streamVersion: number; type: string; globalPosition: number; data: Record<string, unknown>; metadata: { executorId: string } };

/**
 * What a forger with every tool but the publisher's private key does after a
 * change: lists every file again with its size and sha256, the streams' heads as
 * events.jsonl now ends them, and signs the new manifest with `key` (their own,
 * or, to isolate the deeper checks, the publisher's).
 */
export function reseal(dir: string, key: KeyObject, change: (m: Manifest) => Manifest = (m) => m): void {
  const old = JSON.parse(read(dir, "manifest.json")) as Manifest;
  const files = new Map<string, Uint8Array>();
  for (const path of listBundleFiles(dir).files) if (path !== "manifest.json" && path !== "manifest.sig.json") files.set(path, readFileSync(join(dir, path)));
  const links = eventLines(dir).flatMap((l) => {
    const parsed = parseEventLine(l);
    return parsed.ok ? [parsed.link] : [];
  });
  const manifest = change(buildManifest({ runId: old.runId, ariadneVersion: old.ariadneVersion, rootHash: old.rootHash, sealEventId: old.sealEventId, streams: headsOf(links), events: links.length, files }));
  const bytes = manifestBytes(manifest);
  const envelope = JSON.parse(read(dir, "manifest.sig.json"));
  const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as Statement;
  write(dir, "manifest.json", bytes);
  const signed = statementOf(bytes, { ...statement.predicate, rootHash: manifest.rootHash });
  write(dir, "manifest.sig.json", JSON.stringify(signEnvelope(IN_TOTO_PAYLOAD_TYPE, statementBytes(signed), key), null, 2));
}

type Line = ReturnType<typeof lineOf> & { eventId: string; schemaVersion: number; recordedAt: string; prevHash: string; hash: string };

/**
 * The deepest forger: changes events with `edit`, then re-chains every stream,
 * points each consumed handoff at its Child's new hash, recomputes the seal's
 * root hash and signs the seal with `key`, writes every derived file again from
 * the new events and re-signs the manifest. What is left for a verifier without
 * the publisher's key is what the events say against the blobs.
 */
export function forgeLog(dir: string, key: KeyObject, edit: (lines: Line[]) => void): void {
  const lines = eventLines(dir).map((l) => JSON.parse(l) as Line);
  edit(lines);
  const heads = new Map<string, { version: number; hash: string }>();
  const renamed = new Map<string, string>();
  const manifest = JSON.parse(read(dir, "manifest.json")) as Manifest;
  let root = manifest.rootHash;
  for (const line of lines) {
    if (line.type === "handoff_consumed") line.data.handoffHash = renamed.get(line.data.handoffHash as string) ?? line.data.handoffHash;
    if (line.type === "run_sealed") {
      const sealed = sortHeads([...heads].filter(([id]) => id.startsWith("executor-")).map(([streamId, h]) => ({ streamId, ...h })));
      root = rootHashOf(sealed);
      line.data = { ...line.data, heads: sealed, rootHash: root, signature: signSeal(key, manifest.runId, root) };
    }
    const prev = heads.get(line.streamId)?.hash ?? GENESIS_HASH;
    const { eventId, streamId, streamVersion, type, schemaVersion, data, metadata, recordedAt } = line;
    const hash = chainHash(prev, canonicalEvent({ eventId, streamId, streamVersion, type, schemaVersion, data, metadata, recordedAt }));
    renamed.set(line.hash, hash);
    Object.assign(line, { prevHash: prev, hash });
    heads.set(line.streamId, { version: line.streamVersion, hash });
  }
  writeEventLines(dir, lines.map((l) => canonicalJson(l)!));
  const { events } = readEventLines(read(dir, "events.jsonl"), manifest.runId);
  const blob = (sha256: string) => {
    try {
      return readFileSync(join(dir, "blobs/sha256", sha256));
    } catch {
      return null;
    }
  };
  for (const [path, bytes] of deriveFiles({ runId: manifest.runId, events, blob })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    write(dir, path, bytes);
  }
  reseal(dir, key, (m) => ({ ...m, rootHash: root }));
}

/** Removes whole events, renumbering each stream's versions after them (forgeLog then re-chains). */
export const removeLines = (remove: (l: Line) => boolean) => (lines: Line[]) => {
  const kept = lines.filter((l) => !remove(l));
  const versions = new Map<string, number>();
  for (const l of kept) versions.set(l.streamId, (l.streamVersion = (versions.get(l.streamId) ?? 0) + 1));
  lines.splice(0, lines.length, ...kept);
};
