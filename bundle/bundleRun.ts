import { Buffer } from "node:buffer";
import { canonicalJson } from "../core/canonicalJson.ts";
import type { RecordedEvent } from "../events/types.ts";
import type { EventType } from "../events/catalogue.ts";

/**
 * A run as the derived files are written from it: its events in log order
 * (parsed and upcast) and its blobs by sha256. Built from the database at export
 * and from events.jsonl and blobs/ at verify, so both derive the same bytes.
 */
export interface BundleRun {
  runId: string;
  events: readonly RecordedEvent[];
  blob(sha256: string): Uint8Array | null;
}

/** A derived file: its path inside the bundle and its bytes. */
export interface DerivedFile {
  path: string;
  bytes: Uint8Array;
}

export const textFile = (path: string, text: string): DerivedFile => ({ path, bytes: Buffer.from(text, "utf8") });

export function ofType<T extends EventType>(events: readonly RecordedEvent[], type: T): RecordedEvent<T>[] {
  return events.filter((e) => e.type === type) as RecordedEvent<T>[];
}

/** Each executor's events, in the order its stream began. */
export function byExecutor(run: BundleRun): Map<string, RecordedEvent[]> {
  const out = new Map<string, RecordedEvent[]>();
  for (const e of run.events) {
    if (!e.streamId.startsWith("executor-")) continue;
    const id = e.metadata.executorId;
    out.set(id, [...(out.get(id) ?? []), e]);
  }
  return out;
}

export function admissionOf(events: readonly RecordedEvent[]): RecordedEvent<"executor_admitted"> | undefined {
  return events[0]?.type === "executor_admitted" ? (events[0] as RecordedEvent<"executor_admitted">) : undefined;
}

/** Main's admission: the run's question and Main's executor id. */
export function mainAdmission(run: BundleRun): RecordedEvent<"executor_admitted"> | undefined {
  return ofType(run.events, "executor_admitted").find((e) => e.data.role === "main");
}

/** Executor ids go into file names: only characters safe in a path. */
export function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_");
}

/** A Markdown code fence longer than any run of backticks inside the text, so the text cannot close it. */
export function fenced(text: string, info = ""): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${text}\n${fence}`;
}

export const profileLabel = (p: { id: string; version: string } | null | undefined) => (p ? `${p.id} v${p.version}` : "no profile");

/**
 * JSON for people, keys in RFC 8785 order: the database (jsonb) and events.jsonl
 * hand back objects with their keys in different orders, and a derived file must
 * not depend on which one it was written from.
 */
export function stableJson(value: unknown, indent?: number): string {
  const canonical = canonicalJson(value) ?? "null";
  return indent ? JSON.stringify(JSON.parse(canonical), null, indent) : canonical;
}
