import { formatZodIssues } from "../core/errors.ts";
import type { ToolEffect } from "../tools/index.ts";
import { DELEGATE_TOOL, parseToolInput } from "../tools/index.ts";
import { type CheckedCall, screenCall } from "./decide/planCalls.ts";
import { DelegateInput } from "./request/delegation.ts";
import type { Call, ExecutorState } from "./fold/executorState.ts";
import type { RoleRecord } from "./request/roles.ts";
import type { RuntimeServices } from "./runtimeServices.ts";

type Inspected = { effect: ToolEffect; childExecutorId?: string } | { problem: string };

/**
 * What the runner finds out about a turn's tool uses before they are decided
 * (decideCalls): the grant, the tool's input check (a delegation's profile is
 * looked up, its Child given an id), then governance, asked once for every call
 * that passed, against the state as recorded (it counts the turn's calls
 * itself). The terminal call is left to the finishing rule.
 */
export async function checkCalls(
  services: Pick<RuntimeServices, "tools" | "governance" | "checkDelegation" | "newId">,
  role: Pick<RoleRecord, "terminalTool">,
  s: ExecutorState,
  calls: readonly Call[],
): Promise<CheckedCall[]> {
  const inspected: { call: Call; found: Inspected | null }[] = [];
  for (const call of calls) {
    if (call.name === role.terminalTool) continue;
    inspected.push({ call, found: screenCall(s, call) ? null : await inspect(services, call) });
  }
  const governed = inspected.flatMap((c) => (c.found && !("problem" in c.found) ? [c.call] : []));
  const verdicts = await services.governance.beforeToolCalls(s, governed);
  const verdictOf = new Map(governed.map((c, i) => [c.toolUseId, verdicts[i]]));
  return inspected.map(({ call, found }): CheckedCall => {
    if (!found) return { call, kind: "notGranted" };
    if ("problem" in found) return { call, kind: "invalid", problem: found.problem };
    const verdict = verdictOf.get(call.toolUseId);
    if (!verdict) throw new Error(`governance gave no verdict on ${call.toolUseId}`);
    return { call, kind: "governed", ...found, verdict };
  });
}

function inspect(services: Pick<RuntimeServices, "tools" | "checkDelegation" | "newId">, call: Call): Promise<Inspected> {
  if (call.name === DELEGATE_TOOL) return inspectDelegation(services, call);
  const tool = services.tools.get(call.name);
  if (!tool) return Promise.resolve({ problem: `Tool "${call.name}" is not available on this host.` });
  const input = parseToolInput(tool, call.input);
  return Promise.resolve(input.ok ? { effect: tool.effect } : { problem: input.message });
}

async function inspectDelegation(services: Pick<RuntimeServices, "checkDelegation" | "newId">, call: Call): Promise<Inspected> {
  const parsed = DelegateInput.safeParse(call.input);
  if (!parsed.success) return { problem: describeIssues(parsed.error.issues) };
  const problem = await services.checkDelegation(parsed.data);
  return problem ? { problem } : { effect: "idempotent", childExecutorId: services.newId() };
}

function describeIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  return `Invalid input for delegate: ${formatZodIssues(issues)}. Correct these fields and delegate again.`;
}
