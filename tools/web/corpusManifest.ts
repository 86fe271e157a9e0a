import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** One line of a corpus manifest (web/manifest.jsonl, pdf/manifest.jsonl). */
export interface ManifestEntry {
  url: string;
  file: string;
  contentType?: string;
  sha256: string;
  bytes: number;
  title?: string;
  lang?: string | null;
}

export async function readManifest(folder: string): Promise<ManifestEntry[]> {
  const text = await readFile(join(folder, "manifest.jsonl"), "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ManifestEntry);
}
