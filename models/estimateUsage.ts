import type { AssistantBlock, ModelRequest, Usage } from "./types.ts";

/** Rough token counts at four characters a token: enough for budgets in tests, never for billing. */
export function estimateUsage(request: ModelRequest, content: AssistantBlock[]): Usage {
  const input = request.system.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length;
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(JSON.stringify(content).length / 4) };
}
