import { immutableCanonical } from "../core/canonicalJson.ts";
import type { AssistantBlock, ModelRequest, Usage } from "./types.ts";

/** Rough token counts at four characters a token: enough for budgets in tests, never for billing. */
export function estimateUsage(request: ModelRequest, content: AssistantBlock[]): Usage {
  const input = request.system.length + listLength(request.messages) + listLength(request.tools);
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(JSON.stringify(content).length / 4) };
}

/** JSON.stringify(list).length; the list itself (a caller may push to it) is measured afresh. */
function listLength(list: readonly unknown[]): number {
  let n = 2 + Math.max(0, list.length - 1);
  for (const item of list) n += jsonLength(item);
  return n;
}

/**
 * JSON.stringify(value).length (null for what JSON leaves out, as in an array),
 * without writing it again: canonical JSON has the same characters in another
 * key order, and the runtime has already written (and kept) the canonical text
 * of every message and tool spec it sends. What canonical JSON refuses (a lone
 * surrogate, NaN) is measured by JSON.stringify itself.
 */
export function jsonLength(value: unknown): number {
  try {
    return immutableCanonical(value).length;
  } catch {
    return JSON.stringify([value]).length - 2;
  }
}
