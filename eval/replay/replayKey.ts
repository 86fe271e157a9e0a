import { createHash } from "node:crypto";
import { canonicalRequest } from "../../actors/request/buildRequest.ts";
import type { ModelRequest } from "../../models/types.ts";

/**
 * A measured figure, as a key of the request's JSON or of JSON quoted in a tool result: a duration (compute's
 * `duration_ms`) or what compute's watch saw of the sandbox (`usage`: its peak processes and memory, the
 * workspace's growth), which the machine's load moves from run to run.
 */
const MEASURED = /(duration_ms|durationMs|peak_processes|peak_memory_mb|workspace_written_mb)(\\*"):\d+(?:\.\d+)?/g;
/**
 * The ids a run draws, or derives from the ones it drew: UUIDs in any case
 * (run, executors, reservations), the record folder of a compute call
 * (`.compute/<16 hex>`, from its idempotency key) and an artifact's id
 * (`art-<20 hex>`, from its executor's id).
 */
const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?<=\.compute\/)[0-9a-f]{16}(?![0-9a-f])|(?<=\bart-)[0-9a-f]{20}(?![0-9a-f])/g;
/** An ISO 8601 instant as Date.toISOString() writes it (a web_fetch's "at ...", recorded times). */
const INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

/**
 * A request's canonical JSON (actors/request/buildRequest.ts) with what differs from
 * run to run put in stable form:
 * - every `enum` list in a tool's input schema is sorted (a handoff's schema
 *   lists the tool results it may cite in the order they completed, which
 *   calls made at once vary);
 * - then, in the canonical text, each UUID becomes `<id:N>`, N counting
 *   distinct ids (case-insensitive) from 1 in order of first appearance,
 *   each ISO 8601 instant becomes `<time>` (a compute call's record folder
 *   `.compute/<16 hex>` and an artifact's `art-<20 hex>` count as ids), and the number of a
 *   measured key (`duration_ms` / `durationMs`, and compute's `usage` peaks) becomes `<ms>`.
 * Two runs of the same case ask the same normalised requests, however their
 * ids, clocks and concurrent calls fell; a changed prompt, tool output or
 * reply still changes it.
 */
export function normalizedRequest(request: ModelRequest): { text: string; ids: string[] } {
  const ordinals = new Map<string, number>();
  const text = canonicalRequest({ ...request, tools: request.tools.map((t) => ({ ...t, input_schema: sortedEnums(t.input_schema) as Record<string, unknown> })) })
    .replace(INSTANT, "<time>")
    .replace(MEASURED, "$1$2:<ms>")
    .replace(UUID, (id) => {
      const key = id.toLowerCase();
      if (!ordinals.has(key)) ordinals.set(key, ordinals.size + 1);
      return `<id:${ordinals.get(key)}>`;
    });
  return { text, ids: [...ordinals.keys()] };
}

/** A JSON Schema with each `enum` list of strings sorted. */
function sortedEnums(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(sortedEnums);
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === "enum" && Array.isArray(v) && v.every((x) => typeof x === "string") ? [...v].sort() : sortedEnums(v)]),
  );
}

/**
 * A recorded response given to the request now: an id the recorded request
 * held at ordinal N (a Child the model cites, say) becomes this request's id
 * at N; ids the request did not hold are kept as recorded.
 */
export function respondAs<T>(response: T, recorded: ModelRequest, now: ModelRequest): T {
  const then = normalizedRequest(recorded).ids;
  const current = normalizedRequest(now).ids;
  const text = JSON.stringify(response).replace(UUID, (id) => {
    const n = then.indexOf(id.toLowerCase());
    return n >= 0 && current[n] ? current[n]! : id;
  });
  return JSON.parse(text) as T;
}

/**
 * What the replay lane keys a recording by: the sha256 of the normalised
 * request. Not the `turn` event's request digest, which hashes the request as
 * sent and stays in the audit chain untouched.
 */
export const replayKey = (request: ModelRequest): string => createHash("sha256").update(normalizedRequest(request).text, "utf8").digest("hex");
