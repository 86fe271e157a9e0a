import { isAriadneError } from "../core/errors.ts";
import { isDirectory } from "./isDirectory.ts";
import { parseUsage } from "./usage.ts";
import { verifyBundleCommand } from "./verifyBundleCommand.ts";

/** The flags `verify DIR` takes. */
export const VERIFY_BUNDLE_OPTIONS = {
  key: { type: "string" },
  claim: { type: "string" },
  root: { type: "string" },
  refetch: { type: "boolean", default: false },
  json: { type: "boolean", default: false },
} as const;

/**
 * `ariadne verify DIR` before the rest of the command line is loaded
 * (cli/bin.mjs): this entry imports no store, driver or runtime, so verifying a
 * bundle loads none of them. Null when the arguments are not a bundle
 * verification as this entry reads them (another target, another flag): the
 * full command line then takes them, and its errors.
 */
export async function verifyBundleMain(argv: string[], out: (line: string) => void = console.log): Promise<number | null> {
  let parsed;
  try {
    parsed = parseUsage(argv, VERIFY_BUNDLE_OPTIONS, "verify");
  } catch {
    return null;
  }
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined || extra.length > 0 || !isDirectory(dir)) return null;
  try {
    const v = parsed.values;
    return await verifyBundleCommand({ dir, keyPath: v.key, claim: v.claim, root: v.root, refetch: v.refetch, json: v.json, out });
  } catch (e) {
    console.error(`ariadne: ${isAriadneError(e) ? e.message : (e as Error)?.message ?? String(e)}`);
    return isAriadneError(e) && e.code === "USAGE" ? 2 : 1;
  }
}
