// Defensive readers for a candidate that may not match the schema: the review and
// the salvage look at whatever is there instead of giving up on the first error.

export function asRecord(x: unknown): Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
}

export function asArray(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

/** The string entries of a list, trimmed when asked, blanks dropped. */
export function strings(x: unknown, trim = false): string[] {
  return asArray(x)
    .filter((v): v is string => typeof v === "string")
    .map((s) => (trim ? s.trim() : s))
    .filter((s) => s !== "");
}

/** findings[0].evidence.toolResults[1]: how paths are shown to the model. */
export function formatPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("") || "(root)";
}
