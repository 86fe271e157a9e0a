import { promises as fs } from "node:fs";
import path from "node:path";
import type { BlobStore, SourceRecord } from "../../sources/types.ts";
import { ToolError } from "../toolErrors.ts";
import { openArtifact } from "../workspace/openArtifact.ts";

export interface ComputeInput {
  sha256: string;
  name: string;
}

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Copies each input blob into `dir` under its name, read-only (the sandbox
 * binds the folder read-only too), and returns a data source for each: the
 * run's result is traceable to the exact bytes it computed from.
 */
export async function stageInputs(blobs: BlobStore, inputs: readonly ComputeInput[], dir: string, fetchedAt: string): Promise<SourceRecord[]> {
  const names = new Set<string>();
  const sources: SourceRecord[] = [];
  for (const input of inputs) {
    if (!FILE_NAME.test(input.name) || input.name === "..") {
      throw new ToolError(`input name "${input.name}" must be a plain file name such as "grunfeld.csv" (letters, digits, . _ -); it becomes /inputs/<name>.`);
    }
    if (names.has(input.name)) throw new ToolError(`two inputs are named "${input.name}"; give each a different name.`);
    names.add(input.name);
    const bytes = await openArtifact(blobs, input.sha256);
    await fs.writeFile(path.join(dir, input.name), bytes, { mode: 0o444 });
    const sha256 = input.sha256.trim().toLowerCase();
    sources.push({ kind: "data", url: `blob:${sha256}`, contentType: "application/octet-stream", fetchedAt, rawSha256: sha256, textSha256: sha256, bytes: bytes.byteLength });
  }
  return sources;
}
