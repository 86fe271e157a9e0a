import { z } from "zod";
import type { ToolSpec } from "../models/types.ts";
import type { HandoffFacts } from "./handoffFacts.ts";
import { HandoffSchema } from "./handoffSchema.ts";

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

type Node = { properties: Record<string, Node>; items: Node; description?: string } & Record<string, unknown>;

/** Exactly these strings, or (when there are none) an empty list; the rest of `base` (its description) kept. */
function onlyThese(base: Node, values: Iterable<string>): Record<string, unknown> {
  const list = [...values];
  const { items: _items, ...rest } = base;
  return list.length ? { ...rest, items: { type: "string", enum: list } } : { maxItems: 0, ...rest, items: { type: "string" } };
}

/** Exactly these artifacts, each field a const, or (when there are none) an empty list. */
function onlyProduced(base: Node, artifacts: HandoffFacts["artifacts"]): Record<string, unknown> {
  const produced = [...artifacts].map(([id, a]) => ({
    type: "object",
    properties: { id: { type: "string", const: id }, path: { type: "string", const: a.path }, sha256: { type: "string", const: a.sha256 } },
    required: ["id", "path", "sha256"],
  }));
  if (produced.length === 0) return { maxItems: 0, ...base };
  return { ...base, items: produced.length === 1 ? produced[0] : { anyOf: produced } };
}

/**
 * The handoff tool as validateHandoff will accept it, given what this executor
 * really did: evidence names its own successful tool calls and the markers its
 * tools printed; artifacts are the ones it produced. Set into the schema derived
 * from zod as plain JSON, because deriving schemas with zod costs about a
 * millisecond and this runs for every turn; tests/actors/toolSchemas.test.ts
 * checks the result against the same narrowing written in zod.
 */
export function handoffToolSpecFor(facts: HandoffFacts): ToolSpec {
  const base = handoffInputSchema as Node;
  const finding = base.properties.findings.items;
  const evidence = finding.properties.evidence;
  const narrowedEvidence = {
    ...evidence,
    properties: {
      ...evidence.properties,
      toolResults: onlyThese(evidence.properties.toolResults, facts.toolResultIds),
      citations: onlyThese(evidence.properties.citations, facts.citationsSeen),
    },
  };
  const findings = { ...base.properties.findings, items: { ...finding, properties: { ...finding.properties, evidence: narrowedEvidence } } };
  const artifacts = onlyProduced(base.properties.artifacts, facts.artifacts);
  return { ...handoffToolSpec, input_schema: { ...base, properties: { ...base.properties, findings, artifacts } } };
}
