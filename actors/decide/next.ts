import { DELEGATE_TOOL } from "../../tools/index.ts";
import type { ExecutorStatus } from "../fold/executorMachine.ts";
import { type Call, type ExecutorState, type Stop, isBackgroundDelegation } from "../fold/executorState.ts";
import type { RoleRecord } from "../request/roles.ts";

/** The one thing an executor does next, decided from its folded state alone. */
export type Next =
  | { kind: "cancel" }
  | { kind: "exhaust"; stop: Stop }
  | { kind: "callModel" }
  | { kind: "collectChildren"; children: BackgroundChild[]; wait: boolean }
  | { kind: "plan"; calls: Call[] }
  | { kind: "start"; calls: Call[] }
  | { kind: "finish"; call: Call }
  | { kind: "awaitChildren"; calls: Call[] }
  | { kind: "settle" }
  | { kind: "stuck"; reason: string };

/** A Child working in the background: its delegate call was answered at once; its result comes with a later request. */
export interface BackgroundChild {
  childExecutorId: string;
  toolUseId: string;
}

/**
 * What comes next for an executor: a cancel request first; then, by state, a
 * model call (or a stop when a limit or the repairs ran out), deciding the
 * turn's calls, starting recorded intents (tools in parallel, Children
 * admitted), finishing with the terminal call once it is alone, or waiting for
 * foreground Children. Before a model call, background Children are asked
 * whether they finished (their results go with the request); when the model has
 * nothing to do but wait for them (idleForChildren), one is waited for instead
 * of spending a turn. `started` holds the intents this process has started
 * (by intentKey: a model may reuse a tool use id in a later turn, as a scripted
 * model restarted in a new process does).
 */
export function decideNext(s: ExecutorState, status: ExecutorStatus, role: RoleRecord, started: ReadonlySet<string>): Next {
  if (s.cancelRequest) return { kind: "cancel" };
  switch (status) {
    case "awaitingModel":
      if (s.stop) return { kind: "exhaust", stop: s.stop };
      if (s.repairs > s.limits.maxHandoffRepairs) {
        return { kind: "exhaust", stop: { limit: null, reason: `${role.resultName} not accepted after ${s.repairs} attempts` } };
      }
      const background = backgroundChildrenOf(s);
      if (background.length) return { kind: "collectChildren", children: background, wait: s.idleForChildren };
      return { kind: "callModel" };
    case "runningTools":
    case "waitingForChildren": {
      const isTerminal = (c: Call) => c.name === role.terminalTool;
      const open = s.calls.filter((c) => c.phase !== "resolved");
      const undecided = open.filter((c) => c.phase === "requested" && !isTerminal(c));
      if (undecided.length) return { kind: "plan", calls: undecided };
      const unstarted = open.filter((c) => c.phase === "called" && !started.has(intentKey(c)));
      if (unstarted.length) return { kind: "start", calls: unstarted };
      const terminal = open.find(isTerminal);
      if (terminal && open.length === 1) return { kind: "finish", call: terminal };
      const children = open.filter((c) => c.name === DELEGATE_TOOL && c.phase === "called" && !isBackgroundDelegation(c));
      if (children.length) return { kind: "awaitChildren", calls: children };
      return { kind: "stuck", reason: `calls in flight it did not start: ${open.map((c) => c.toolUseId).join(", ")}` };
    }
    case "handingOff":
      return { kind: "settle" };
    default:
      return { kind: "stuck", reason: `cannot proceed from ${status}` };
  }
}

/** What identifies an intent this process started: its tool_called event, unique where tool use ids need not be. */
export const intentKey = (c: Call): string => c.intentEventId ?? c.toolUseId;

/** The executor's Children working in the background whose results it has not consumed. */
export function backgroundChildrenOf(s: ExecutorState): BackgroundChild[] {
  return Object.entries(s.children)
    .filter(([, c]) => !c.consumed && !s.calls.some((x) => x.toolUseId === c.toolUseId))
    .map(([childExecutorId, c]) => ({ childExecutorId, toolUseId: c.toolUseId }));
}
