import { z } from "zod";
import type { ToolSpec } from "../models/types.ts";
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
