import { ScriptedModel } from "../scriptedModel.ts";
import type { ModelRequest } from "../types.ts";
import { DEFAULT_CHILD_TOKENS, childPolicy } from "./childPolicy.ts";
import { mainPolicy } from "./mainPolicy.ts";

/** The name `ariadne run --model baseline` and `ariadne eval --lane baseline` choose it by. */
export const BASELINE_MODEL = "baseline";

/**
 * The model-free baseline researcher: a scripted policy, not a language model,
 * behind the model port, so the runtime, governance, handoffs and log are those
 * of any run. Main delegates one Child per facet of the question; a Child
 * searches, fetches, reads and quotes (childPolicy.ts); Main answers from the
 * handoffs (mainPolicy.ts). Its replies say `scripted: true` and
 * `scripted:baseline-researcher`, and their token counts are estimated
 * (four characters a token), as every ScriptedModel's are.
 */
export function baselineResearcher(options: { latencyMs?: number; /** A web-explorer Child's token cap (the run's investigate-style cap). */ childTokens?: number } = {}): ScriptedModel {
  return new ScriptedModel({
    name: "baseline-researcher",
    latencyMs: options.latencyMs,
    keepRequests: false,
    policy: (request: ModelRequest) => (request.tools.some((t) => t.name === "answer") ? mainPolicy(request) : childPolicy(request, options.childTokens ?? DEFAULT_CHILD_TOKENS)),
  });
}
