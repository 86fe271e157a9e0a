import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { ModelRequest, ToolSpec } from "../models/types.ts";
import type { ExecutorState } from "./executorState.ts";
import { MAIN_SYSTEM, childSystem } from "./prompts.ts";

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
    system: state.role === "main" ? MAIN_SYSTEM : childSystem(ctx.profileContent),
    messages: state.messages,
    tools: ctx.tools,
    maxTokens: ctx.maxTokens,
  };
}

export function requestDigest(request: ModelRequest): string {
  return createHash("sha256").update(canonicalize(request) ?? "", "utf8").digest("hex");
}
