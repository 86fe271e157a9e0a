import { createHash } from "node:crypto";
import { canonicalJson, immutableCanonical } from "../../core/canonicalJson.ts";
import type { ModelRequest, ToolSpec } from "../../models/types.ts";
import type { ExecutorState } from "../fold/executorState.ts";
import { narrowToolSpecs } from "./narrowToolSpecs.ts";

export interface RequestContext {
  /** The system prompt it was offered at admission (its role's, with its bound profile's method). */
  system: string;
  /** Specs of the tools it was offered at admission: its granted tools, delegate, its terminal tool, in a stable order. */
  tools: ToolSpec[];
  maxTokens: number;
}

/**
 * The request an executor sends for its next turn: a pure function of its
 * folded state, so a transcript can be rebuilt from the log and checked
 * against the digest recorded with each turn.
 */
export function buildRequest(state: ExecutorState, ctx: RequestContext): ModelRequest {
  return {
    model: state.model,
    system: ctx.system,
    messages: state.messages,
    tools: narrowToolSpecs(ctx.tools, state),
    maxTokens: ctx.maxTokens,
  };
}

/** sha256 of the request's RFC 8785 canonical JSON. */
export function requestDigest(request: ModelRequest): string {
  return digestOf(canonicalRequest(request));
}

/** sha256 of a request's canonical text, when it is already built. */
export const digestOf = (canonical: string): string => createHash("sha256").update(canonical, "utf8").digest("hex");

/** Input tokens of a request, estimated from its canonical text (four characters a token) before it is sent. */
export const estimateInputTokens = (canonical: string): number => Math.ceil(canonical.length / 4);

/**
 * The same bytes as canonicalJson(request), assembled from cached parts. JCS
 * orders object keys by code unit: maxTokens, messages, model, system, tools.
 * Messages and tool specs are never mutated once built (the fold makes new
 * ones, and narrowed specs share every part they do not narrow), so the
 * canonical text of every object and array is kept: a turn costs its new
 * messages and the parts of the specs narrowed for it, not the whole request.
 * tests/actors/requestDigest.property.test.ts holds it to RFC 8785 written plainly (tests/support/jcsReference.ts).
 */
export function canonicalRequest(request: ModelRequest): string {
  const { maxTokens, messages, model, system, tools } = request;
  return (
    `{"maxTokens":${canonicalJson(maxTokens)},"messages":[${messages.map(immutableCanonical).join(",")}],` +
    `"model":${canonicalJson(model)},"system":${canonicalJson(system)},"tools":[${tools.map(immutableCanonical).join(",")}]}`
  );
}
