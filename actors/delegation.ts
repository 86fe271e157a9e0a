import { z } from "zod";
import { DELEGATE_TOOL, toolSpec } from "../tools/index.ts";

/** What Main passes to a Child: the Child sees this and nothing else of Main's conversation. */
export const DelegateInput = z.object({
  question: z.string().trim().min(1).describe("One specific question for the Child to answer."),
  context: z.string().describe("Everything the Child needs to know; it cannot see this conversation."),
  done_when: z.string().trim().min(1).describe("What a complete answer contains."),
  profile: z.string().trim().min(1).describe("Specialty profile id, e.g. web-explorer, document-reader, compute-analyst."),
  tools: z.array(z.string()).optional().describe("Tools the Child should get; default: what its profile asks for, read-only."),
  wait: z
    .boolean()
    .optional()
    .describe("true (default): wait for the handoff before your next turn. false: the Child works in the background and its handoff is delivered with a later request; you are not held up by it."),
});
export type DelegateInput = z.infer<typeof DelegateInput>;

export function delegateToolSpec(profiles: readonly { id: string; summary: string }[]) {
  const list = profiles.map((p) => `${p.id} (${p.summary})`).join("; ");
  return toolSpec(
    DELEGATE_TOOL,
    `Delegate a multi-step local task to a fresh Child executor with its own context. Profiles: ${list}. Returns the Child's handoff.`,
    DelegateInput,
  );
}
