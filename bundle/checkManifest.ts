import { Buffer } from "node:buffer";
import { BUNDLE_FORMAT, type Manifest, type ManifestFile } from "./layout.ts";
import { sha256Of } from "./manifest.ts";
import { readIfPresent } from "./readBundleDir.ts";

const HEX64 = /^[0-9a-f]{64}$/;

/** The manifest's shape, or why it is not a bundle manifest. */
export function parseManifest(bytes: Buffer): { ok: true; manifest: Manifest } | { ok: false; reason: string } {
  let m: Partial<Manifest>;
  try {
    m = JSON.parse(bytes.toString("utf8"));
  } catch (e) {
    return { ok: false, reason: `manifest.json is not JSON (${(e as Error).message})` };
  }
  if (m?.format !== BUNDLE_FORMAT) return { ok: false, reason: `manifest.json is not an Ariadne run bundle manifest (format ${JSON.stringify(m?.format)})` };
  if (typeof m.runId !== "string" || !HEX64.test(String(m.rootHash)) || !Array.isArray(m.files) || !Array.isArray(m.streams) || !m.counts) {
    return { ok: false, reason: "manifest.json lacks its run id, root hash, files, streams or counts" };
  }
  const bad = m.files.find((f: Partial<ManifestFile>) => typeof f?.path !== "string" || !Number.isSafeInteger(f.size) || !HEX64.test(String(f.sha256)) || !safePath(f.path));
  if (bad) return { ok: false, reason: `manifest.json lists a file it cannot describe: ${JSON.stringify(bad)}` };
  return { ok: true, manifest: m as Manifest };
}

/** A relative path inside the bundle: no absolute path, no `..`, no empty part. */
export const safePath = (path: string) => !path.startsWith("/") && path.split("/").every((p) => p !== "" && p !== "." && p !== "..");

/** Each file the manifest lists, against the bytes on disk; then every file on disk the manifest does not list. */
export function fileProblems(dir: string, manifest: Manifest, onDisk: readonly string[], exempt: readonly string[]): string[] {
  const problems: string[] = [];
  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.path);
    const bytes = readIfPresent(dir, f.path);
    if (!bytes) problems.push(`${f.path}: listed in manifest.json but missing from the bundle`);
    else if (bytes.byteLength !== f.size) problems.push(`${f.path}: ${bytes.byteLength} bytes, but manifest.json lists ${f.size}`);
    else if (sha256Of(bytes) !== f.sha256) problems.push(`${f.path}: its sha256 is ${sha256Of(bytes)}, but manifest.json lists ${f.sha256}: the file was changed`);
  }
  for (const path of onDisk) if (!listed.has(path) && !exempt.includes(path)) problems.push(`${path}: in the bundle but not listed in manifest.json`);
  if (manifest.counts.files !== manifest.files.length) problems.push(`manifest.json: counts ${manifest.counts.files} files but lists ${manifest.files.length}`);
  return problems;
}
