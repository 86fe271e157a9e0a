import { canonicalJsonOfAnything } from "./canonicalJsonOfAnything.ts";

/** Thrown inside the fast writer when a value is not plain JSON; canonicalJsonOfAnything then decides. */
const NOT_PLAIN: unique symbol = Symbol("not plain JSON");
/** Deeper than this, the iterative writer takes over (and names a cycle, if that is what it is). */
const MAX_DEPTH = 256;

/**
 * RFC 8785 (JCS) canonical JSON, the same bytes as the `canonicalize` package
 * 5.1 wrote before this project carried its own port
 * (tests/core/canonicalJson.property.test.ts holds it to the RFC's definition
 * and its examples): plain JSON values (what the log stores) are written by a
 * recursive writer without per-node frames and a cycle set; anything else
 * (toJSON, boxed primitives, lone surrogates, non-finite numbers, cycles) goes
 * to canonicalJsonOfAnything, which writes or refuses it as the package did.
 * Undefined when the value has no JSON form.
 *
 * With `memo`, the text of every object and array is kept there and reused:
 * only for values that are never mutated once built.
 */
export function canonicalJson(value: unknown, memo?: WeakMap<object, string>): string | undefined {
  try {
    return write(value, 0, memo);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return canonicalJsonOfAnything(value);
  }
}

/**
 * A string as JSON.stringify writes it, quoted: most strings need no escape,
 * and are written without the serializer's setup. Throws NOT_PLAIN for a lone
 * surrogate (refused by canonicalJsonOfAnything).
 */
function quote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      if (!s.isWellFormed()) throw NOT_PLAIN;
      return JSON.stringify(s);
    }
  }
  return `"${s}"`;
}

/** Keys in UTF-16 code unit order, as Array.prototype.sort orders strings; insertion sort, since objects here are small. */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

function write(v: unknown, depth: number, memo: WeakMap<object, string> | undefined): string | undefined {
  switch (typeof v) {
    case "string":
      return quote(v);
    case "number":
      // For a finite number JSON.stringify is ToString (ES2024 25.5.2.2), which JCS prescribes.
      if (!Number.isFinite(v)) throw NOT_PLAIN;
      return String(v);
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "object":
      if (v === null) return "null";
      if (memo) {
        let text = memo.get(v);
        if (text === undefined) memo.set(v, (text = writeContainer(v, depth, memo)));
        return text;
      }
      return writeContainer(v, depth, memo);
    default:
      throw NOT_PLAIN;
  }
}

function writeContainer(v: object, depth: number, memo: WeakMap<object, string> | undefined): string {
  if (depth > MAX_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
  if (v instanceof Number || v instanceof String || v instanceof Boolean) throw NOT_PLAIN;
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      out += write(v[i], depth + 1, memo) ?? "null";
    }
    return out + "]";
  }
  const keys = sortedKeys(v);
  let out = "{";
  let first = true;
  for (const key of keys) {
    const text = write((v as Record<string, unknown>)[key], depth + 1, memo);
    if (text === undefined) continue;
    out += first ? `${quote(key)}:${text}` : `,${quote(key)}:${text}`;
    first = false;
  }
  return out + "}";
}

/** Canonical text of values never mutated once built (request messages, tool specs and their parts), by object. */
const immutableText = new WeakMap<object, string>();

/**
 * canonicalJson of a value that is never mutated once built, memoised per
 * object and array: a value built from parts already written costs only its
 * new parts. Undefined is written as null (as in an array).
 */
export const immutableCanonical = (value: unknown): string => canonicalJson(value, immutableText) ?? "null";

/**
 * Records the canonical text of a value assembled from a template (see
 * handoffToolSpecFor), so it is not written again; the caller's tests hold the
 * text to canonicalJson(value).
 */
export function rememberCanonical<T extends object>(value: T, text: string): T {
  immutableText.set(value, text);
  return value;
}
