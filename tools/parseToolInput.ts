import type { z } from "zod";
import { formatIssues, fromZodIssues, type IssueDetail } from "../core/errors.ts";
import type { Tool } from "./defineTool.ts";

export type ToolInputCheck<S extends z.ZodType> =
  | { ok: true; value: z.output<S> }
  | { ok: false; issues: IssueDetail[]; message: string };

/** Validates model-written input; the message names each failing path so the model can fix it. */
export function parseToolInput<S extends z.ZodType>(tool: Tool<S>, input: unknown): ToolInputCheck<S> {
  const parsed = tool.input.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = fromZodIssues(parsed.error.issues);
  return {
    ok: false,
    issues,
    message: `Invalid input for tool "${tool.name}": ${formatIssues(issues)}. Correct these fields and call ${tool.name} again.`,
  };
}
