import type { z } from "zod";
import { sanitizeText } from "../core/sanitizeText.ts";
import type { ToolSpec } from "../models/types.ts";
import { ToolDefinitionError } from "./toolErrors.ts";
import { toolSpec } from "./toolSpec.ts";
import type { ArtifactRecord, BlobStore, SourceRecord } from "../sources/types.ts";
import { type Capability, capabilitiesOf } from "./capabilities.ts";

/**
 * What running the tool can do to the world. Grants and recovery depend on it:
 * only read_only tools are in a Child's default grant, and only read_only or
 * idempotent calls may be replayed freely after a crash.
 */
export type ToolEffect = "read_only" | "idempotent" | "effectful";

/** Deliberately minimal; the runtime will add to it as tools need more. */
export interface ToolContext {
  runId: string;
  executorId: string;
  signal: AbortSignal;
  /**
   * Derived from the call's recorded intent: the same on the first run and on a
   * re-run after a crash, so an idempotent tool can have its effect applied once
   * (send it as the Idempotency-Key of the request that changes something).
   */
  idempotencyKey: string;
  /**
   * Where a tool stores what it read and what it wrote, content-addressed. Absent
   * only where no run hosts the call (a tool that needs it then fails clearly).
   */
  blobs?: BlobStore;
  /** The executor's own working folder (absolute path); file tools are scoped to it. */
  workspaceDir?: string;
  /** The clock a source's `fetchedAt` is read from (injectable for replay and tests). */
  now?: () => Date;
  /**
   * Whether the run has seen this URL (the task, a search result, a page already
   * fetched: all in the log). The runtime, not the model, decides what may be fetched.
   */
  isReachable?: (url: string) => boolean;
}

/** A tool's result with what it read and produced, for the log and the audit trail. */
export interface ToolResult {
  /** What the model is shown (text, or JSON text when structured). */
  output: string;
  /** Every outside source the result was built from, each stored as blobs. */
  sources?: SourceRecord[];
  /** Files the tool produced and published from the workspace. */
  artifacts?: ArtifactRecord[];
  /** URLs this result shows the model (search hits, a page's links): they become reachable. */
  links?: string[];
}

export interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  effect: ToolEffect;
  /**
   * `network` for a tool that reads untrusted outside content, `private_data` for one
   * that reads the user's own data; `effects` is implied by an effectful tool.
   */
  capabilities?: readonly Capability[];
  /** Returns the tool_result content (plain text, or JSON text when structured), or a ToolResult naming its sources. */
  run(input: z.output<S>, ctx: ToolContext): Promise<string | ToolResult> | string | ToolResult;
}

/** A tool's output as the log records it: cleaned, with what was replaced named (absent when nothing was). */
export interface ToolOutput extends ToolResult {
  sanitized?: string[];
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: S;
  readonly effect: ToolEffect;
  /** Its capability classes, effects included (tools/capabilities.ts). */
  readonly capabilities: readonly Capability[];
  // Method syntax on purpose: a registry holds tools of many input types as Tool.
  /** The definition's run, its output cleaned of what the event log cannot hold (U+0000, lone surrogates). */
  run(input: z.output<S>, ctx: ToolContext): Promise<string>;
  /** As run, and says what was replaced, for the tool_completed event. */
  runSanitized(input: z.output<S>, ctx: ToolContext): Promise<ToolOutput>;
  /** What the model is shown, computed once so a bad schema fails at definition time. */
  readonly spec: ToolSpec;
}

// The provider limit is 64 characters; lower snake case keeps names readable in logs.
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool<S> {
  if (!TOOL_NAME.test(def.name)) {
    throw new ToolDefinitionError(`tool name "${def.name}" must be lower snake case, at most 64 characters`);
  }
  const spec = toolSpec(def.name, def.description, def.input);
  if (spec.input_schema.type !== "object") {
    throw new ToolDefinitionError(`tool "${def.name}" input must be an object schema; model tool inputs are JSON objects`);
  }
  const runSanitized = async (input: z.output<S>, ctx: ToolContext): Promise<ToolOutput> => {
    const result = await def.run(input, ctx);
    const { output, ...rest } = typeof result === "string" ? { output: result } : result;
    const { value, notes } = sanitizeText(output, "output");
    return notes.length ? { ...rest, output: value, sanitized: notes } : { ...rest, output: value };
  };
  const capabilities = Object.freeze(capabilitiesOf(def.capabilities, def.effect));
  return Object.freeze({ ...def, capabilities, spec, runSanitized, run: async (input: z.output<S>, ctx: ToolContext) => (await runSanitized(input, ctx)).output });
}
