import { z } from "zod";
import type { ToolSpec } from "../models/types.ts";

/**
 * JSON Schema for what the model must send. "input" mode because the model writes
 * the input side (defaults are optional for it); the "$schema" tag is dropped
 * since model APIs want a bare schema object.
 */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}

export function toolSpec(name: string, description: string, input: z.ZodType): ToolSpec {
  return { name, description, input_schema: inputJsonSchema(input) };
}
