import { createHash } from "node:crypto";
import { immutableCanonical } from "../core/canonicalJson.ts";
import type { ModelRequest } from "./types.ts";

/**
 * The id of a scripted tool use, derived from the request alone, so an
 * executor resumed in another process never repeats one (a per-process counter
 * restarted at 1 there) and a replayed request gets the same ids. The executor
 * is told apart by its system prompt and first message (its task), the turn by
 * the replies the request already holds, and the block by its index.
 */
export function scriptedToolUseId(request: ModelRequest, index: number): string {
  const executor = createHash("sha256")
    .update(request.system, "utf8")
    .update("\u0000")
    .update(immutableCanonical(request.messages[0] ?? null), "utf8")
    .digest("hex")
    .slice(0, 12);
  const turn = request.messages.filter((m) => m.role === "assistant").length + 1;
  return `toolu_scripted_${executor}_${turn}_${index}`;
}
