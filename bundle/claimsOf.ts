import { claimsOfEvents } from "../projections/claimChains.ts";
import type { RunClaims } from "../projections/claimTypes.ts";
import type { BundleRun } from "./bundleRun.ts";

const folded = new WeakMap<BundleRun, RunClaims>();

/**
 * The run's claims as the claim provenance projection follows them, ids c1,
 * c2, … in the answer's order: the one numbering answer.md, claims.jsonl,
 * `verify DIR --claim` and `ariadne audit` share. Folded once per run, as
 * several writers and the verifier ask for it.
 */
export function claimsOf(run: BundleRun): RunClaims {
  let claims = folded.get(run);
  if (!claims) folded.set(run, (claims = claimsOfEvents(run.runId, run.events)));
  return claims;
}
