import { canonicalJson } from "../../core/canonicalJson.ts";
import { type BundleRun, type DerivedFile, textFile } from "../bundleRun.ts";
import { claimsOf } from "../claimsOf.ts";

/** claims.jsonl: one line per claim of the answer, its provenance chain as the projection (and `ariadne audit --json`) gives it, in RFC 8785 JSON. */
export function writeClaims(run: BundleRun): DerivedFile[] {
  return [textFile("claims.jsonl", claimsOf(run).claims.map((c) => `${canonicalJson(c)!}\n`).join(""))];
}
