import { sql } from "kysely";
import type { Clock, IdGenerator } from "../core/clock.ts";
import { ConcurrencyError, FencedError, TransactionOrderError, ValidationError } from "../core/errors.ts";
import type { Database } from "../db/openDatabase.ts";
import { canonicalEvent, type HashedFields } from "./hashChain.ts";
import type { AppendResult, NewEvent, RecordedEvent } from "./types.ts";
import { validateEvents } from "./validateEvents.ts";

export interface AppendDeps {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
}

/** A lease owner's token: the append is refused (FencedError) unless the run is still at this epoch. */
export interface Fence {
  runId: string;
  epoch: number;
}

/** One append, validated and canonicalised, ready to be sent alone or in a batch. */
export interface PreparedAppend {
  streamId: string;
  /**
   * The run the stream belongs to (the fence's, else the first event's), sent
   * with the append fenced or not: the argument a store distributed by run
   * routes the call by (docs/scaling.md).
   */
  runId: string;
  expectedVersion: number;
  fence: Fence | undefined;
  recordedAt: Date;
  events: { fields: HashedFields; canonical: string }[];
  /** Characters of canonical JSON, to keep a batch's statement a sane size. */
  size: number;
}

/** An append's outcome in a batch: its result, or the error that refused it alone. */
export type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: Error };

/**
 * Checks and canonicalises an append without touching the database. All or
 * nothing: an invalid event throws ValidationError naming its path.
 */
export function prepareAppend(
  deps: Pick<AppendDeps, "clock" | "newId">,
  streamId: string,
  expectedVersion: number,
  events: readonly NewEvent[],
  fence?: Fence,
): PreparedAppend {
  if (typeof streamId !== "string" || streamId.length === 0 || streamId.length > 200) {
    throw new ValidationError("invalid append", [{ path: ["streamId"], message: "a non-empty string of at most 200 characters" }]);
  }
  if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
    throw new ValidationError("invalid append", [{ path: ["expectedVersion"], message: "a non-negative integer" }]);
  }
  const valid = validateEvents(events);
  const recordedAt = deps.clock.now();
  const iso = recordedAt.toISOString();
  let size = 0;
  const prepared = valid.map((e, i) => {
    const fields: HashedFields = {
      eventId: events[i].eventId ?? deps.newId(),
      streamId,
      streamVersion: expectedVersion + i + 1,
      type: e.type,
      schemaVersion: e.schemaVersion,
      data: e.data,
      metadata: e.metadata,
      recordedAt: iso,
    };
    const canonical = canonicalEvent(fields);
    size += canonical.length;
    return { fields, canonical };
  });
  return { streamId, runId: fence?.runId ?? valid[0].metadata.runId, expectedVersion, fence, recordedAt, events: prepared, size };
}

interface BatchRow {
  append_index: number;
  status: string;
  detail: string | null;
  global_position: string | number | null;
  stream_version: number | null;
  prev_hash: string | null;
  hash: string | null;
}

/**
 * Sends appends in one call (ariadne_append_batch): one transaction, one
 * commit. Each append succeeds or fails alone (a stale version or fence);
 * an error of the call itself is thrown for all of them: TransactionOrderError
 * inside a caller's transaction (nothing written), or a lost connection (then
 * only the log can tell whether the commit happened).
 */
export async function sendAppends(database: Database, appends: readonly PreparedAppend[]): Promise<AppendOutcome[]> {
  const events: string[] = [];
  for (const a of appends) for (const e of a.events) events.push(e.canonical);
  let result: { rows: BatchRow[] };
  try {
    result = await sql<BatchRow>`
    SELECT * FROM ariadne_append_batch(
      ${appends.map((a) => a.streamId)}::text[], ${appends.map((a) => a.expectedVersion)}::integer[],
      ${appends.map((a) => a.runId)}::text[], ${appends.map((a) => a.fence?.epoch ?? null)}::bigint[],
      ${appends.map((a) => a.events.length)}::integer[], ${events}::text[])`.execute(database.db);
  } catch (e) {
    const err = e as { code?: string; detail?: string };
    if (err.code === "40001") throw new TransactionOrderError(err.detail ?? appends[0].streamId, { cause: e });
    throw e;
  }

  const rowsOf = appends.map((): BatchRow[] => []);
  for (const row of result.rows) rowsOf[row.append_index - 1].push(row);
  return appends.map((append, i) => outcome(append, rowsOf[i]));
}

function outcome(append: PreparedAppend, rows: BatchRow[]): AppendOutcome {
  const failed = rows.find((r) => r.status !== "ok");
  if (failed) return { ok: false, error: refusal(append, failed) };
  // Matched to the events by version, not by the order the rows come back in.
  const byVersion = new Map(rows.map((r) => [r.stream_version, r]));
  if (append.events.some(({ fields }) => !byVersion.has(fields.streamVersion))) {
    return { ok: false, error: new Error(`ariadne_append_batch returned too few rows for the append to ${append.streamId}`) };
  }
  const recorded = append.events.map(({ fields }): RecordedEvent => {
    const row = byVersion.get(fields.streamVersion)!;
    return {
      ...fields,
      recordedAt: append.recordedAt,
      globalPosition: Number(row.global_position),
      prevHash: row.prev_hash!,
      hash: row.hash!,
    } as RecordedEvent;
  });
  return {
    ok: true,
    result: {
      nextExpectedVersion: append.expectedVersion + recorded.length,
      positions: recorded.map((e) => e.globalPosition),
      events: recorded,
    },
  };
}

function refusal(append: PreparedAppend, row: BatchRow): Error {
  const detail = row.detail === null || row.detail === "" ? null : Number(row.detail);
  switch (row.status) {
    case "AR412":
      return new ConcurrencyError(append.streamId, append.expectedVersion, detail ?? 0);
    case "AR409":
      return new FencedError(append.fence!.runId, append.fence!.epoch, detail);
    default:
      return new Error(`ariadne_append_batch: unknown status ${row.status} for ${append.streamId}`);
  }
}

/**
 * Appends events to a stream if, and only if, the stream is at `expectedVersion`
 * (0: the stream must not exist yet), in a call of its own on `deps.database`
 * (which may be a transaction). All or nothing: an invalid event throws
 * ValidationError, a stale version ConcurrencyError, and nothing is written.
 */
export async function appendToStream(
  deps: AppendDeps,
  streamId: string,
  expectedVersion: number,
  events: readonly NewEvent[],
  fence?: Fence,
): Promise<AppendResult> {
  const [sent] = await sendAppends(deps.database, [prepareAppend(deps, streamId, expectedVersion, events, fence)]);
  if (!sent.ok) throw sent.error;
  return sent.result;
}
