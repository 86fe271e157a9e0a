import { z } from "zod";
import { ConfigError } from "../../core/errors.ts";
import type { ToolSpec } from "../../models/types.ts";
import { DELEGATE_TOOL, toolSpec } from "../../tools/index.ts";

/**
 * What Main passes to a Child: the Child sees this and nothing else of Main's
 * conversation. Structural only, so a recorded intent parses whatever profiles
 * are installed today; what the model is shown is narrowed (delegateInputFor).
 */
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

/**
 * DelegateInput as the runtime will accept it: `profile` one of the installed
 * profiles, `tools` (when given) names the delegating executor may pass on. A
 * model that follows only the schema then cannot invent either.
 */
export function delegateInputFor(profileIds: readonly string[], grantable?: readonly string[]) {
  if (profileIds.length === 0) throw new ConfigError("no Specialty Profiles are installed, so delegate has nothing to offer");
  return DelegateInput.extend({
    profile: z.enum(profileIds as [string, ...string[]]).describe("Specialty profile id: one of the installed profiles."),
    ...(grantable && {
      tools: (grantable.length ? z.array(z.enum(grantable as [string, ...string[]])) : z.array(z.string()).max(0))
        .optional()
        .describe("Tools the Child should get, from those you hold; default: what its profile asks for, read-only."),
    }),
  });
}

export function delegateToolSpec(profiles: readonly { id: string; summary: string }[], grantable?: readonly string[]): ToolSpec {
  const list = profiles.map((p) => `${p.id} (${p.summary})`).join("; ");
  const description = `Delegate a multi-step local task to a fresh Child executor with its own context. Profiles: ${list}. Returns the Child's handoff.`;
  return derived(description, profiles.map((p) => p.id), grantable);
}

/**
 * The delegate spec with `tools` narrowed to what the delegating executor holds
 * (a Child gets at most that). The request context carries the spec, not the
 * profile list, so the profiles are read back from the spec's own enum.
 */
export function narrowDelegateTools(spec: ToolSpec, grantable: readonly string[]): ToolSpec {
  const profile = (spec.input_schema.properties as Record<string, { enum?: string[] }>).profile;
  return derived(spec.description, profile.enum ?? [], grantable);
}

/**
 * The delegate spec for these profiles and grantable tools. Deriving a schema
 * with zod costs about a millisecond, and every run asks for the same few, so
 * each is derived once (specs are never mutated once built).
 */
function derived(description: string, profileIds: readonly string[], grantable: readonly string[] | undefined): ToolSpec {
  const key = JSON.stringify([description, profileIds, grantable ?? null]);
  let spec = derivedSpecs.get(key);
  if (!spec) {
    if (derivedSpecs.size >= 256) derivedSpecs.clear();
    spec = toolSpec(DELEGATE_TOOL, description, delegateInputFor(profileIds, grantable));
    derivedSpecs.set(key, spec);
  }
  return spec;
}

const derivedSpecs = new Map<string, ToolSpec>();
