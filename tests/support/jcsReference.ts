/**
 * RFC 8785 (JCS) written the plain way, as the tests' reference for
 * core/canonicalJson.ts: the value as JSON.stringify sees it (toJSON, boxed
 * primitives, undefined and functions dropped or null, holes as null), parsed
 * back, then written with object keys sorted by UTF-16 code unit and every
 * primitive as JSON.stringify writes it (numbers by ECMAScript's ToString, as
 * JCS prescribes). What JCS refuses is refused first, by the messages the
 * project has always used: NaN, infinities, lone surrogates, cycles.
 */
export function jcsReference(value: unknown): string | undefined {
  refuse(value, []);
  const text = JSON.stringify(value);
  return text === undefined ? undefined : write(JSON.parse(text));
}

function write(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(write).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${write(o[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The first thing JCS cannot write, thrown; `path` holds the containers above (a cycle is one met again). */
function refuse(start: unknown, path: unknown[]): void {
  let v = start;
  const wrappers: unknown[] = [];
  while (v !== null && typeof v === "object" && typeof (v as { toJSON?: unknown }).toJSON === "function") {
    if (path.includes(v) || wrappers.includes(v)) throw new Error("Circular reference detected");
    wrappers.push(v);
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
  if (typeof v === "number" && Number.isNaN(v)) throw new Error("NaN is not allowed");
  if (typeof v === "number" && !Number.isFinite(v)) throw new Error("Infinity is not allowed");
  if (typeof v === "string" && !v.isWellFormed()) throw new Error("Lone surrogate is not allowed");
  if (v === null || typeof v !== "object") return;
  if (path.includes(v)) throw new Error("Circular reference detected");
  const inner = [...path, ...wrappers, v];
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) refuse(v[i], inner);
    return;
  }
  for (const key of Object.keys(v).sort()) {
    const child = (v as Record<string, unknown>)[key];
    if (child === undefined || typeof child === "function" || typeof child === "symbol") continue;
    if (!key.isWellFormed()) throw new Error("Lone surrogate is not allowed");
    refuse(child, inner);
  }
}
