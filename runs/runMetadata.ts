import { z } from "zod";
import { UNSTORABLE_TEXT, isStorableText } from "../core/sanitizeText.ts";

/** The bounds of a run's metadata: at most this many keys, each key and value at most this long. */
export const METADATA_BOUNDS = { maxKeys: 16, maxKeyLength: 64, maxValueLength: 512 } as const;

/** A key is 1-64 of letters, digits, `_`, `-`, `.`, `:` (so `metadata[key]=value` in a query needs no escaping of brackets). */
export const METADATA_KEY = /^[A-Za-z0-9_.:-]+$/;

/**
 * A run's metadata: a string map its submitter gives, carried with the run
 * (its row and its run_submitted fact), never interpreted. Checked here, so
 * the API and the command line refuse the same maps with the same paths
 * (`metadata.<key>`).
 */
export const RunMetadata = z
  .record(
    z.string().min(1).max(METADATA_BOUNDS.maxKeyLength).regex(METADATA_KEY, "a metadata key is letters, digits, '_', '-', '.' or ':'"),
    z.string().max(METADATA_BOUNDS.maxValueLength).refine(isStorableText, UNSTORABLE_TEXT),
  )
  .refine((m) => Object.keys(m).length <= METADATA_BOUNDS.maxKeys, `at most ${METADATA_BOUNDS.maxKeys} metadata keys`);
export type RunMetadata = z.output<typeof RunMetadata>;
