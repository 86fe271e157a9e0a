import canonicalize from "canonicalize";

/** Thrown inside the fast writer when a value is not plain JSON; the package then decides. */
const NOT_PLAIN: unique symbol = Symbol("not plain JSON");
/** Deeper than this, the package's iterative writer takes over (and names a cycle, if that is what it is). */
const MAX_DEPTH = 256;

/**
 * RFC 8785 (JCS) canonical JSON, the same bytes as the `canonicalize` package
 * (tests/core/canonicalJson.property.test.ts holds it to that): plain JSON
 * values (what the log stores) are written by a recursive writer without the
 * package's per-node frames and cycle set; anything else (toJSON, boxed
 * primitives, lone surrogates, non-finite numbers, cycles) goes to the package,
 * which writes or refuses it as it always did. Undefined when the value has no
 * JSON form.
 */
export function canonicalJson(value: unknown): string | undefined {
  try {
    return write(value, 0);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    return canonicalize(value);
  }
}

/** A string as JCS writes it; lone surrogates are the package's to refuse. */
export function canonicalString(s: string): string {
  if (!s.isWellFormed()) return canonicalize(s)!;
  return JSON.stringify(s);
}

function write(v: unknown, depth: number): string | undefined {
  switch (typeof v) {
    case "string":
      if (!v.isWellFormed()) throw NOT_PLAIN;
      return JSON.stringify(v);
    case "number":
      if (!Number.isFinite(v)) throw NOT_PLAIN;
      return JSON.stringify(v);
    case "boolean":
      return v ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "object":
      if (v === null) return "null";
      return writeContainer(v, depth);
    default:
      throw NOT_PLAIN;
  }
}

function writeContainer(v: object, depth: number): string {
  if (depth > MAX_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === "function") throw NOT_PLAIN;
  if (v instanceof Number || v instanceof String || v instanceof Boolean) throw NOT_PLAIN;
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      out += write(v[i], depth + 1) ?? "null";
    }
    return out + "]";
  }
  const keys = Object.keys(v).sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const text = write((v as Record<string, unknown>)[key], depth + 1);
    if (text === undefined) continue;
    if (!key.isWellFormed()) throw NOT_PLAIN;
    out += first ? `${JSON.stringify(key)}:${text}` : `,${JSON.stringify(key)}:${text}`;
    first = false;
  }
  return out + "}";
}
