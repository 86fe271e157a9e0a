import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { BLOBS_DIR, EVENTS_FILE } from "../../bundle/layout.ts";
import { parseEventLine } from "../../bundle/eventLines.ts";
import type { Database } from "../../db/index.ts";
import type { ChainLink } from "../../events/hashChain.ts";

/**
 * Runs recorded by the code before issue 28 moved what a model is sent into
 * the events (tests/fixtures/recorded-before-28/README.md): exported bundles,
 * kept byte for byte as that code wrote them.
 */
export const RECORDED_BEFORE_28 = fileURLToPath(new URL("../fixtures/recorded-before-28/", import.meta.url));

export interface RecordedRun {
  name: string;
  runId: string;
  mainExecutorId: string;
  /** The exported bundle's folder. */
  dir: string;
}

export function recordedRuns(): RecordedRun[] {
  const runs = JSON.parse(readFileSync(join(RECORDED_BEFORE_28, "runs.json"), "utf8")) as Record<string, { runId: string; mainExecutorId: string }>;
  return Object.entries(runs).map(([name, r]) => ({ name, ...r, dir: join(RECORDED_BEFORE_28, name) }));
}

/** The public key the fixture's seals and bundles were signed with. */
export const recordedSealKey = () => join(RECORDED_BEFORE_28, "seal.pub");

/** The bundle's events, as stored (never upcast), in log order. */
export type RecordedLink = ChainLink & { metadata: { runId: string; executorId: string } };

export function recordedLinks(dir: string): RecordedLink[] {
  return readFileSync(join(dir, EVENTS_FILE), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((line, i) => {
      const parsed = parseEventLine(line);
      if (!parsed.ok) throw new Error(`${dir}/${EVENTS_FILE} line ${i + 1} ${parsed.reason}`);
      return parsed.link as RecordedLink;
    })
    .sort((a, b) => a.globalPosition - b.globalPosition);
}

/**
 * Puts a recorded run into a fresh store as its writer left it: the event rows
 * with their hashes (metadata stored whole, as rows before migration 0018
 * were, which every read accepts) at their recorded positions, the stream heads, the run's row (finished)
 * and the blobs. `keep` takes a prefix of the log, for a run cut short.
 */
export async function loadRecordedRun(database: Database, run: RecordedRun, keep: (link: RecordedLink) => boolean = () => true): Promise<RecordedLink[]> {
  const links = recordedLinks(run.dir).filter(keep);
  const db = database.db;
  const heads = new Map<string, ChainLink>();
  for (const l of links) {
    await sql`
      INSERT INTO ariadne_events (global_position, event_id, stream_id, stream_version, run_id, executor_id, type, schema_version, data, metadata, recorded_at, prev_hash, hash)
      VALUES (${l.globalPosition}, ${l.eventId}, ${l.streamId}, ${l.streamVersion}, ${l.metadata.runId}, ${l.metadata.executorId}, ${l.type}, ${l.schemaVersion},
              ${JSON.stringify(l.data)}::jsonb, ${JSON.stringify(l.metadata)}::jsonb, ${l.recordedAt.toISOString()}, decode(${l.prevHash}, 'hex'), decode(${l.hash}, 'hex'))
    `.execute(db);
    heads.set(l.streamId, l);
  }
  // Positions as recorded (an export writes them); the sequence then continues after them.
  await sql`SELECT setval(pg_get_serial_sequence('ariadne_events', 'global_position'), (SELECT max(global_position) FROM ariadne_events))`.execute(db);
  for (const [streamId, head] of heads) {
    await sql`INSERT INTO ariadne_streams (run_id, stream_id, version, last_hash) VALUES (${run.runId}, ${streamId}, ${head.streamVersion}, decode(${head.hash}, 'hex'))`.execute(db);
  }
  const submitted = links.find((l) => l.type === "run_submitted")?.data as { question: string; options: unknown } | undefined;
  const admitted = links.find((l) => l.type === "executor_admitted" && l.metadata.executorId === run.mainExecutorId)?.data as { task: { question: string } } | undefined;
  const finished = links.some((l) => l.type === "run_sealed");
  await sql`
    INSERT INTO ariadne_runs (run_id, main_executor_id, question, options, state)
    VALUES (${run.runId}, ${run.mainExecutorId}, ${submitted?.question ?? admitted?.task.question ?? ""}, ${JSON.stringify(submitted?.options ?? {})}::jsonb, ${finished ? "finished" : "interrupted"})
  `.execute(db);
  const blobs = join(run.dir, BLOBS_DIR);
  for (const sha256 of existsSync(blobs) ? readdirSync(blobs) : []) {
    const bytes = readFileSync(join(blobs, sha256));
    await sql`INSERT INTO ariadne_source_blobs (sha256, bytes, size) VALUES (${sha256}, ${bytes}, ${bytes.length}) ON CONFLICT DO NOTHING`.execute(db);
  }
  return links;
}
