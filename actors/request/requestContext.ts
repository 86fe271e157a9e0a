import type { EventData, RecordedEvent } from "../../events/index.ts";
import type { ToolSpec } from "../../models/types.ts";
import { UnknownProfileError, boundProfileBefore28, listProfiles, loadProfile } from "../../profiles/index.ts";
import { DELEGATE_TOOL, type ToolRegistry } from "../../tools/index.ts";
import type { BlobStore } from "../../sources/types.ts";
import type { RequestContext } from "./buildRequest.ts";
import { type Offered, type ServerTool, readOffered } from "./offeredSpecs.ts";
import { type DelegateInput, delegateToolSpec } from "./delegation.ts";
import { type Role, roleFor } from "./roles.ts";

/** What the requests of a run's executors are built with, beside their folded state. */
export interface RequestContextOptions {
  tools: ToolRegistry;
  profilesDir?: string;
  /** The Specialty Profiles a delegation may name in this run; default every installed one. */
  allowedProfiles?: readonly string[];
  maxTokens?: number;
}

/**
 * What an executor is offered at admission (recorded then, offeredSpecs.ts):
 * its role's system prompt with its profile's method, the specs of its granted
 * tools as this host defines them, delegate's (naming the profiles it may
 * delegate to) and its terminal tool's; and the server tools its model sends
 * in place of some of them (`serverTools`).
 */
export async function offeredAt(
  admitted: { role: Role; singleAgent?: boolean; grantedTools: readonly string[] },
  profileContent: string | null,
  options: RequestContextOptions,
  serverTools: readonly ServerTool[] = [],
): Promise<Offered> {
  const role = roleFor(admitted);
  const granted = admitted.grantedTools;
  const tools: ToolSpec[] = options.tools.specsFor(granted.filter((t) => t !== DELEGATE_TOOL));
  if (granted.includes(DELEGATE_TOOL)) tools.push(delegateToolSpec(await delegableProfiles(options)));
  tools.push(role.terminalSpec);
  const server = serverTools.filter((s) => tools.some((t) => t.name === s.name));
  return { system: role.system(profileContent), tools, ...(server.length && { serverTools: server }) };
}

/**
 * What an executor's requests are built with besides its folded state: the
 * system prompt and tool specs it was offered, read from the log by the hash
 * its admission recorded. An admission recorded before they were (`offered`
 * null) is rebuilt from this host's tools and profile files as it was then,
 * its bound profile found by its hash: the file, or a version Ariadne shipped
 * (profiles/shippedBefore28/); neither, and the change of file refuses it.
 */
export async function requestContextOf(admitted: RecordedEvent<"executor_admitted">, blobs: BlobStore, options: RequestContextOptions): Promise<RequestContext> {
  const d = admitted.data;
  const offered = d.offered ? await readOffered(blobs, d.offered, admitted.metadata.executorId) : await offeredBefore(d, options);
  return { system: offered.system, tools: offered.tools, maxTokens: options.maxTokens ?? 4096 };
}

async function offeredBefore(admitted: EventData<"executor_admitted">, options: RequestContextOptions): Promise<Offered> {
  const own = roleFor(admitted).profile;
  const profile = admitted.profile ? await boundProfileBefore28(admitted.profile, own?.dir ?? options.profilesDir) : null;
  return offeredAt(admitted, profile?.content ?? null, options);
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
