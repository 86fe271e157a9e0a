import type { KeyObject } from "node:crypto";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope } from "../../bundle/dsse.ts";
import { parseEventLine } from "../../bundle/eventLines.ts";
import type { Manifest, Statement } from "../../bundle/layout.ts";
import { buildManifest, manifestBytes, statementBytes, statementOf } from "../../bundle/manifest.ts";
import { listBundleFiles } from "../../bundle/readBundleDir.ts";
import { headsOf } from "../../bundle/writeBundle.ts";
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
