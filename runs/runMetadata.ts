import { z } from "zod";
import { UNSTORABLE_TEXT, isStorableText } from "../core/sanitizeText.ts";

/** The bounds of a run's metadata: at most this many keys, each key and value at most this long. */
export const METADATA_BOUNDS = { maxKeys: 16, maxKeyLength: 64, maxValueLength: 512 } as const;

/** A key is 1-64 of letters, digits, `_`, `-`, `.`, `:` (so `metadata[key]=value` in a query needs no escaping of brackets). */
export const METADATA_KEY = /^[A-Za-z0-9_.:-]+$/;

/** Keys an object treats as its own machinery: `{"__proto__": …}` would vanish when copied, and match every run as a filter. */
export const RESERVED_METADATA_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

/**
 * Refuses reserved keys on the raw map, before a record is built from it (building one drops `__proto__`
 * silently). The issue carries `params.status` 422: the HTTP API answers it as Unprocessable Content.
 */
export function refuseReservedKeys(value: unknown, ctx: { addIssue(issue: { code: "custom"; path: string[]; message: string; params: { status: number } }): void }): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const key of Object.keys(value)) {
      if (RESERVED_METADATA_KEYS.includes(key)) ctx.addIssue({ code: "custom", path: [key], message: `"${key}" is reserved and cannot be a metadata key`, params: { status: 422 } });
    }
  }
  return value;
}

/**
 * A run's metadata: a string map its submitter gives, carried with the run
 * (its row and its run_submitted fact), never interpreted. Checked here, so
 * the API and the command line refuse the same maps with the same paths
 * (`metadata.<key>`).
 */
export const RunMetadata = z.preprocess(refuseReservedKeys, z
  .record(
    z.string().min(1).max(METADATA_BOUNDS.maxKeyLength).regex(METADATA_KEY, "a metadata key is letters, digits, '_', '-', '.' or ':'"),
    z.string().max(METADATA_BOUNDS.maxValueLength).refine(isStorableText, UNSTORABLE_TEXT),
  )
  .refine((m) => Object.keys(m).length <= METADATA_BOUNDS.maxKeys, `at most ${METADATA_BOUNDS.maxKeys} metadata keys`));
export type RunMetadata = z.output<typeof RunMetadata>;
