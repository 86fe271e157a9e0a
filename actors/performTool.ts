import { isDatabaseUnavailable } from "../core/connectionLoss.ts";
import { isDiskFull } from "../core/diskFull.ts";
import { type Tool, type ToolContext, type ToolOutput, isToolRefused, parseToolInput } from "../tools/index.ts";
import type { Draft } from "../events/index.ts";
import { idempotencyKeyOf, toolCompleted, toolThrew } from "./decide/index.ts";
import type { Call, ExecutorState } from "./fold/executorState.ts";
import { reachableCheck } from "./request/reachableUrls.ts";
import type { RunnerPort } from "./runnerPort.ts";
import { workspaceDirOf } from "./runtimeServices.ts";

/**
 * Runs a tool whose intent is decided (recorded, or held when read-only), and
 * records its outcome (a refusal keeps its reason). A read-only call's outcome
 * is held for the executor's next append rather than committed alone, as one
 * row with its intent when that is still held (heldCalls.ts): a crash before
 * then runs it again, which a read-only call allows. Any other call's outcome
 * is committed before the executor goes on, and so is every outcome once a
 * cancel is under way.
 */
export async function performTool(runner: RunnerPort, call: Call): Promise<void> {
  const tool = runner.services.tools.get(call.name)!;
  const input = parseToolInput(tool, call.input);
  if (!input.ok) throw new Error(`recorded intent ${call.toolUseId} has input its tool refuses`);
  runner.inFlight.set(call.toolUseId, { kind: "tool", toolUseId: call.toolUseId, tool: call.name });
  let output: ToolOutput;
  try {
    output = await runner.abortable(Promise.resolve(tool.runSanitized(input.value, toolContext(runner, runner.state, call))));
  } catch (error) {
    // The run's own database gave out under the tool (its blobs): no outcome is recorded, so the
    // intent stays open for the next host (a read-only call is run again, an effectful one is
    // recorded as effect_unknown, never silently re-run). A tool's own network errors are its outcome.
    // So is a full disk (the blob table's, or the workspace beside the store): its outcome could not be kept.
    if (isDatabaseUnavailable(error) || isDiskFull(error)) throw error;
    return keep(runner, tool, call, threw(tool, call, error, runner.cancelling));
  } finally {
    runner.inFlight.delete(call.toolUseId);
  }
  return keep(runner, tool, call, toolCompleted(call, output));
}

async function keep(runner: RunnerPort, tool: Tool, call: Call, outcome: Draft): Promise<void> {
  if (tool.effect === "read_only" && (call.effect ?? "read_only") === "read_only" && !runner.cancelling) runner.hold([outcome]);
  else await runner.record([outcome]);
}

function threw(tool: Tool, call: Call, error: unknown, cancelling: boolean) {
  const message = (error as Error).message ?? String(error);
  if (isToolRefused(error)) return toolThrew(call, tool.effect, `${call.name} refused (${error.reason}): ${message}`, cancelling, error.reason);
  return toolThrew(call, tool.effect, `${call.name} failed: ${message}`, cancelling);
}

/**
 * What a tool run is lent: the run's blobs, the runtime's clock, the
 * executor's workspace (when the runtime has a workspace root) and the check
 * of which URLs this executor has seen, from its folded state.
 */
function toolContext(runner: RunnerPort, s: ExecutorState, call: Call): ToolContext {
  const { blobs, workspaceRoot, clock } = runner.services;
  return {
    runId: s.runId,
    executorId: s.executorId,
    signal: runner.signal,
    idempotencyKey: idempotencyKeyOf(call),
    blobs,
    workspaceDir: workspaceRoot === undefined ? undefined : workspaceDirOf(workspaceRoot, s.runId, s.executorId),
    now: () => clock.now(),
    isReachable: reachableCheck(s.reachable),
  };
}
