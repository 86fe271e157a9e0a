import type { Draft } from "../../events/index.ts";
import type { ToolEffect, ToolOutput } from "../../tools/index.ts";
import type { Call, ExecutorState, Stop } from "../fold/executorState.ts";
import type { RoleRecord } from "../request/roles.ts";
import { type InFlight, decideCancel } from "./cancel.ts";
import { type ChildResult, decideChildOutcome } from "./childOutcome.ts";
import { exhaust } from "./exhaust.ts";
import { finish } from "./finish.ts";
import { type CheckedCall, decideCalls } from "./planCalls.ts";
import { decideRecovery } from "./recovery.ts";
import { type ReviewSetting, decideReview } from "./review.ts";
import { toolCompleted, toolThrew } from "./toolOutcome.ts";
import { type Answered, type Failed, turnFailed, turnRecorded } from "./turn.ts";

/**
 * What an executor learned, from its own state (a limit, a terminal call) or
 * from an effect the runner performed (a model call, a tool, a Child, the
 * governance port). Each is decided by `decide` into the events to record.
 */
export type Fact =
  /** Rebuilt from the log: intents recorded before the rebuild, without an outcome, are resolved by effect class. */
  | { kind: "rebuilt"; effectOf: (tool: string) => ToolEffect }
  /** A limit or the repairs ran out: the role's partial result (blobTexts: the stored text the last handoff's quotes cite, read by the runner). */
  | { kind: "stopped"; stop: Stop; blobTexts?: ReadonlyMap<string, string> }
  /** A cancel request, once what was in flight has stopped. */
  | { kind: "cancelStopped"; inFlight: readonly InFlight[] }
  /** Before a turn: the run's reviewer setting, the time and fresh ids. */
  | { kind: "beforeTurn"; review: ReviewSetting }
  /** Governance refused the model call. */
  | { kind: "modelRefused"; limit: string; reason: string; events: readonly Draft[] }
  | ({ kind: "modelAnswered" } & Answered)
  | ({ kind: "modelFailed" } & Failed)
  /** A turn's tool uses, checked and put to governance (after a conflict, or a rebuild between the turn and its decisions). */
  | { kind: "callsChecked"; turn: number; calls: readonly CheckedCall[] }
  | { kind: "toolReturned"; call: Call; output: string | ToolOutput }
  | { kind: "toolThrew"; call: Call; effect: ToolEffect; message: string; cancelled: boolean }
  /** A background Child was admitted: its delegate call is answered at once. */
  | { kind: "childWorking"; call: Call }
  | { kind: "childrenEnded"; results: readonly ChildResult[] }
  /** The terminal tool call, alone in its turn; for a handoff, the stored text its quotes cite, read by the runner. */
  | { kind: "terminalCalled"; call: Call; blobTexts?: ReadonlyMap<string, string> }
  /** A committed handoff: the executor settles. */
  | { kind: "handedOff" };

/**
 * Every decision of an executor, pure: its folded state and a fact in, the
 * events to record out (often none). The runner performs effects and records
 * what this returns; it decides nothing itself.
 */
export function decide(s: ExecutorState, fact: Fact, role: RoleRecord): Draft[] {
  switch (fact.kind) {
    case "rebuilt":
      return decideRecovery(s, fact.effectOf);
    case "stopped":
      return exhaust(role, s, fact.stop, fact.blobTexts);
    case "cancelStopped":
      return [decideCancel(s, fact.inFlight)];
    case "beforeTurn":
      return decideReview(s, role, fact.review);
    case "modelRefused":
      return [...fact.events, ...exhaust(role, s, { limit: fact.limit, reason: fact.reason })];
    case "modelAnswered":
      return turnRecorded(s, fact);
    case "modelFailed":
      return turnFailed(s, fact);
    case "callsChecked":
      return decideCalls(s, role, fact.turn, fact.calls);
    case "toolReturned":
      return [toolCompleted(fact.call, fact.output)];
    case "toolThrew":
      return [toolThrew(fact.call, fact.effect, fact.message, fact.cancelled)];
    case "childWorking":
      return [toolCompleted(fact.call, backgroundNote(fact.call.childExecutorId!))];
    case "childrenEnded":
      // A Child whose delegate call is no longer open worked in the background: its result comes as a text block.
      return fact.results.map((r) => decideChildOutcome(r, !s.calls.some((c) => c.toolUseId === r.toolUseId)));
    case "terminalCalled":
      return finish(role, s, fact.call, fact.blobTexts);
    case "handedOff":
      return [{ type: "settled", data: { outcome: role.resultName === "check" ? "checked" : "handed_off" } }];
  }
}

/** What the model is told when a Child starts in the background. */
function backgroundNote(childExecutorId: string): string {
  return JSON.stringify({
    child_executor_id: childExecutorId,
    status: "working in the background",
    note: "Its handoff will be delivered with a later request, once it has finished.",
  });
}
