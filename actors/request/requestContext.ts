import type { EventData } from "../../events/index.ts";
import type { ToolSpec } from "../../models/types.ts";
import { UnknownProfileError, assertBindingMatches, listProfiles, loadProfile } from "../../profiles/index.ts";
import { DELEGATE_TOOL, type ToolRegistry } from "../../tools/index.ts";
import type { RequestContext } from "./buildRequest.ts";
import { type DelegateInput, delegateToolSpec } from "./delegation.ts";
import { roleFor } from "./roles.ts";

/** What the requests of a run's executors are built with, beside their folded state. */
export interface RequestContextOptions {
  tools: ToolRegistry;
  profilesDir?: string;
  /** The Specialty Profiles a delegation may name in this run; default every installed one. */
  allowedProfiles?: readonly string[];
  maxTokens?: number;
}

/**
 * What an executor's requests are built with besides its folded state: its
 * frozen profile (checked against the binding: a changed profile refuses
 * redispatch), the specs of its granted tools and its terminal tool.
 */
export async function requestContextOf(admitted: EventData<"executor_admitted">, options: RequestContextOptions): Promise<RequestContext> {
  const own = roleFor(admitted).profile;
  const profile = admitted.profile ? await assertBindingMatches(admitted.profile, own?.dir ?? options.profilesDir) : null;
  const granted = admitted.grantedTools;
  const specs: ToolSpec[] = options.tools.specsFor(granted.filter((t) => t !== DELEGATE_TOOL));
  if (granted.includes(DELEGATE_TOOL)) specs.push(delegateToolSpec(await delegableProfiles(options)));
  specs.push(roleFor(admitted).terminalSpec);
  return { profileContent: profile?.content ?? null, tools: specs, maxTokens: options.maxTokens ?? 4096 };
}

/** The installed profiles a delegation may name in this run (allowedProfiles narrows them). */
export async function delegableProfiles(options: Pick<RequestContextOptions, "profilesDir" | "allowedProfiles">) {
  const installed = await listProfiles(options.profilesDir);
  const allowed = options.allowedProfiles;
  return allowed ? installed.filter((p) => allowed.includes(p.id)) : installed;
}

/** A reason the delegation cannot be admitted (a profile not allowed or not installed), or null. */
export async function checkDelegation(input: DelegateInput, options: Pick<RequestContextOptions, "profilesDir" | "allowedProfiles">): Promise<string | null> {
  const allowed = options.allowedProfiles;
  if (allowed && !allowed.includes(input.profile)) {
    return `Profile "${input.profile}" is not allowed in this run. Allowed profiles: ${allowed.join(", ")}. Delegate again with one of them.`;
  }
  try {
    await loadProfile(input.profile, options.profilesDir);
    return null;
  } catch (e) {
    if (!(e instanceof UnknownProfileError)) throw e;
    const known = (await listProfiles(options.profilesDir)).map((p) => p.id).join(", ");
    return `Unknown profile "${input.profile}". Available profiles: ${known}. Delegate again with one of them.`;
  }
}
