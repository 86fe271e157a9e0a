import { z } from "zod";
import type { ToolSpec } from "../models/types.ts";
import type { HandoffFacts } from "./handoffFacts.ts";
import { ArtifactRefSchema, EvidenceSchema, FindingSchema, HandoffSchema } from "./handoffSchema.ts";

/** The handoff tool's input schema, derived from the zod schema so the two cannot drift. */
export const handoffInputSchema: Record<string, unknown> = (() => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(HandoffSchema, { io: "input" }) as Record<string, unknown>;
  return rest;
})();

export const HANDOFF_TOOL = "handoff";

export const handoffToolSpec: ToolSpec = {
  name: HANDOFF_TOOL,
  description:
    "Hand your work back to the executor that delegated it. Call once, when done or when you cannot go further. " +
    "Evidence has two kinds of reference, each in its own field: toolResults holds tool_use ids of your successful tool calls; " +
    "citations holds citation markers such as [[corpus:doc#p3]] copied from tool outputs. " +
    "List only artifacts a tool really produced. Name gaps honestly; partial findings are useful.",
  input_schema: handoffInputSchema,
};

/** Exactly these strings, or (when there are none) an empty list. */
const oneOf = (values: Iterable<string>, description: string | undefined) => {
  const list = [...values];
  const items = list.length ? z.array(z.enum(list as [string, ...string[]])) : z.array(z.string()).max(0);
  return description ? items.describe(description) : items;
};

/**
 * The handoff's input schema as validateHandoff will accept it, given what this
 * executor really did: evidence names its own successful tool calls and the
 * markers its tools printed, artifacts are the ones it produced.
 */
export function handoffInputFor(facts: HandoffFacts) {
  const evidence = EvidenceSchema.extend({
    toolResults: oneOf(facts.toolResultIds, EvidenceSchema.shape.toolResults.description),
    citations: oneOf(facts.citationsSeen, EvidenceSchema.shape.citations.description),
  });
  const produced = [...facts.artifacts].map(([id, a]) =>
    ArtifactRefSchema.extend({ id: z.literal(id), path: z.literal(a.path), sha256: z.literal(a.sha256) }),
  );
  const artifact = produced.length === 0 ? null : produced.length === 1 ? produced[0] : z.union(produced);
  return HandoffSchema.extend({
    findings: z.array(FindingSchema.extend({ evidence })),
    artifacts: (artifact ? z.array(artifact) : z.array(ArtifactRefSchema).max(0)).describe(HandoffSchema.shape.artifacts.description!),
  });
}

export function handoffToolSpecFor(facts: HandoffFacts): ToolSpec {
  const { $schema: _drop, ...input_schema } = z.toJSONSchema(handoffInputFor(facts), { io: "input" }) as Record<string, unknown>;
  return { ...handoffToolSpec, input_schema };
}
