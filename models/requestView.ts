import type { ModelRequest, ToolResultBlock, ToolUseBlock } from "./types.ts";

/** Read-only helpers a scripted policy (a scenario's, the baseline researcher's) uses to look at the request it was sent. */
export interface ToolExchange {
  use: ToolUseBlock;
  result: ToolResultBlock | undefined;
}

export function exchanges(request: ModelRequest): ToolExchange[] {
  const results = new Map<string, ToolResultBlock>();
  for (const m of request.messages) {
    if (m.role === "user" && Array.isArray(m.content)) {
      for (const b of m.content) if (b.type === "tool_result") results.set(b.tool_use_id, b);
    }
  }
  return request.messages.flatMap((m) =>
    m.role === "assistant"
      ? m.content.filter((b): b is ToolUseBlock => b.type === "tool_use").map((use) => ({ use, result: results.get(use.id) }))
      : [],
  );
}

/** Successful results of one tool, in call order. */
export function resultsOf(request: ModelRequest, tool: string): { id: string; output: string }[] {
  return exchanges(request)
    .filter((x) => x.use.name === tool && x.result && !x.result.is_error)
    .map((x) => ({ id: x.use.id, output: x.result!.content }));
}

export function turnsTaken(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === "assistant").length;
}

export function lastResultWasError(request: ModelRequest): ToolResultBlock | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== "user" || !Array.isArray(last.content)) return undefined;
  return last.content.find((b): b is ToolResultBlock => b.type === "tool_result" && b.is_error === true);
}
