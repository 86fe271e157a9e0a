import { createHash } from "node:crypto";
import { canonicalJson } from "../core/canonicalJson.ts";
import type { ModelRequest, ToolSpec } from "../models/types.ts";
import type { ExecutorState } from "./executorState.ts";
import { narrowToolSpecs } from "./narrowToolSpecs.ts";
import { roleOf } from "./roles.ts";

export interface RequestContext {
  /** The Child's frozen profile content (verified against its binding), null for Main. */
  profileContent: string | null;
  /** Specs of the executor's granted tools plus its terminal tool, in a stable order. */
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
    system: roleOf(state.role).system(ctx.profileContent),
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

// Messages and tool specs are never mutated once built (the fold makes new ones, and narrowed specs
// share every part they do not narrow), so the canonical text of every object and array is kept: a
// turn costs its new messages and the parts of the specs narrowed for it, not the whole request again.
const canonicalOf = new WeakMap<object, string>();

/**
 * RFC 8785 canonical JSON of a JSON value, memoised per object and array. Keys
 * sort by UTF-16 code units (JS's default sort) and primitives serialise as
 * JSON.stringify does, which is what JCS prescribes; the property test in
 * tests/actors/requestDigest.property.test.ts holds it to the canonicalize package.
 */
function cachedCanonical(value: unknown): string {
  if (value === null || typeof value !== "object") return canonicalJson(value) ?? "null";
  let text = canonicalOf.get(value);
  if (text === undefined) {
    text = Array.isArray(value)
      ? `[${value.map((v) => (v === undefined ? "null" : cachedCanonical(v))).join(",")}]`
      : `{${Object.keys(value)
          .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${cachedCanonical((value as Record<string, unknown>)[k])}`)
          .join(",")}}`;
    canonicalOf.set(value, text);
  }
  return text;
}

/**
 * The same bytes as canonicalize(request), assembled from cached parts. JCS
 * orders object keys by code unit: maxTokens, messages, model, system, tools.
 */
export function canonicalRequest(request: ModelRequest): string {
  const { maxTokens, messages, model, system, tools } = request;
  return (
    `{"maxTokens":${canonicalJson(maxTokens)},"messages":[${messages.map(cachedCanonical).join(",")}],` +
    `"model":${canonicalJson(model)},"system":${canonicalJson(system)},"tools":[${tools.map(cachedCanonical).join(",")}]}`
  );
}
