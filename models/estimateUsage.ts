import type { AssistantBlock, ModelRequest, Usage } from "./types.ts";

/** Rough token counts at four characters a token: enough for budgets in tests, never for billing. */
export function estimateUsage(request: ModelRequest, content: AssistantBlock[]): Usage {
  const input = request.system.length + listLength(request.messages) + listLength(request.tools);
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(JSON.stringify(content).length / 4) };
}

/** JSON.stringify(list).length; the list itself (a caller may push to it) is measured afresh. */
function listLength(list: readonly unknown[]): number {
  let n = 2 + Math.max(0, list.length - 1);
  for (const item of list) n += item === undefined ? 4 : jsonLength(item);
  return n;
}

/** Thrown inside the counter for what JSON.stringify converts (toJSON, boxed values, bigint) or a cycle. */
const NOT_PLAIN: unique symbol = Symbol("not plain JSON");
const MAX_DEPTH = 256;

// A request's messages and tool specs are never mutated once built and most are sent again with every
// turn, so the length of each object and array is kept: a turn counts only its new parts.
const lengthOf = new WeakMap<object, number>();

/**
 * JSON.stringify(value).length without building the text (tests/models pin
 * the two equal), memoised per object and array; a value JSON leaves out
 * counts as null, as it does in an array.
 */
export function jsonLength(value: unknown): number {
  try {
    return measure(value, 0) ?? 4;
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return JSON.stringify([value]).length - 2;
  }
}

function measure(v: unknown, depth: number): number | undefined {
  switch (typeof v) {
    case "string":
      return quotedLength(v);
    case "number":
      return Number.isFinite(v) ? String(v).length : 4;
    case "boolean":
      return v ? 4 : 5;
    case "object": {
      if (v === null) return 4;
      let n = lengthOf.get(v);
      if (n === undefined) lengthOf.set(v, (n = measureContainer(v, depth)));
      return n;
    }
    case "bigint":
      throw NOT_PLAIN;
    default:
      // undefined, functions and symbols: left out of objects, null in arrays.
      return undefined;
  }
}

function measureContainer(v: object, depth: number): number {
  if (depth > MAX_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
  if (v instanceof Number || v instanceof String || v instanceof Boolean) throw NOT_PLAIN;
  if (Array.isArray(v)) {
    let n = 2 + Math.max(0, v.length - 1);
    for (let i = 0; i < v.length; i++) n += measure(v[i], depth + 1) ?? 4;
    return n;
  }
  let n = 2;
  let members = 0;
  for (const key of Object.keys(v)) {
    const m = measure((v as Record<string, unknown>)[key], depth + 1);
    if (m === undefined) continue;
    n += quotedLength(key) + 1 + m;
    members++;
  }
  return n + Math.max(0, members - 1);
}

/** The length of JSON.stringify(s): most strings need no escape. */
function quotedLength(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s).length;
  }
  return s.length + 2;
}
