import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ValidationError, fromZodIssues } from "../../core/errors.ts";
import type { ModelRequest, ModelResponse } from "../../models/types.ts";

/** A recorded model exchange, keyed by its request's replay key (eval/replay/replayKey.ts). */
export interface Recording {
  /** sha256 of the normalised request: what a replay looks it up by. */
  key: string;
  /** sha256 of the request as sent: the digest its `turn` event recorded, to find it in the log. */
  digest: string;
  request: ModelRequest;
  response: ModelResponse;
}

const RecordingLine = z.object({ key: z.string().regex(/^[0-9a-f]{64}$/), digest: z.string().regex(/^[0-9a-f]{64}$/), request: z.record(z.string(), z.unknown()), response: z.record(z.string(), z.unknown()) });

/** Where a case's recordings live: beside its case.json. */
export const recordingsFile = (caseDir: string): string => path.join(caseDir, "replay.jsonl");

export async function readRecordings(file: string): Promise<Recording[]> {
  if (!existsSync(file)) return [];
  const lines = (await readFile(file, "utf8")).split("\n").filter((l) => l.trim());
  return lines.map((line, i) => {
    const parsed = RecordingLine.safeParse(JSON.parse(line));
    if (!parsed.success) throw new ValidationError(`invalid recording ${file}:${i + 1}`, fromZodIssues(parsed.error.issues));
    return parsed.data as unknown as Recording;
  });
}

/** One line a recording, ordered by key, so a refresh that changes nothing but ids and times keeps the lines in place. */
export async function writeRecordings(file: string, recordings: readonly Recording[]): Promise<void> {
  const sorted = [...new Map(recordings.map((r) => [r.key, r])).values()].sort((a, b) => a.key.localeCompare(b.key));
  await writeFile(file, sorted.map((r) => JSON.stringify(r)).join("\n") + "\n");
}
