import { checkToolCall } from "../../tools/index.ts";
import type { ToolEffect } from "../../tools/index.ts";
import type { Call, ExecutorState } from "../fold/executorState.ts";
import type { RoleRecord } from "../request/roles.ts";
import type { Draft } from "./draft.ts";
import type { Verdict } from "../../governance/port.ts";

/** What the runner learned about one tool use before deciding it (input checks and governance are effects). */
export type CallFact =
  | { kind: "invalid"; problem: string }
  | { kind: "refused"; limit: string; reason: string; events: Draft[] }
  | { kind: "allowed"; effect: ToolEffect; childExecutorId?: string; events: Draft[] };

/** The grant check, before anything else is asked: a call not granted never reaches the tool or governance. */
export function screenCall(s: ExecutorState, call: Call): Draft | null {
  const check = checkToolCall(s.grantedTools, { type: "tool_use", id: call.toolUseId, name: call.name, input: call.input });
  if (check.ok) return null;
  return { type: "tool_failed", data: { toolUseId: call.toolUseId, tool: call.name, reason: "not_granted", message: check.refusal.message } };
}

/**
 * Decides one tool use from what is known of it: a refusal (invalid input,
 * governance) or an intent, with the governance events that decided it. A
 * governance refusal names its limit; the fold then stops the executor.
 */
export function decideCall(role: RoleRecord, turn: number, call: Call, fact: CallFact): Draft[] {
  const base = { toolUseId: call.toolUseId, tool: call.name };
  switch (fact.kind) {
    case "invalid":
      return [{ type: "tool_failed", data: { ...base, reason: "invalid_input", message: fact.problem } }];
    case "refused":
      return [...fact.events, { type: "tool_failed", data: { ...base, reason: "governance", message: `${fact.reason}. ${role.onRefusal}`, limit: fact.limit } }];
    case "allowed":
      return [
        ...fact.events,
        {
          type: "tool_called",
          data: { turn, ...base, input: call.input, effect: fact.effect, ...(fact.childExecutorId ? { childExecutorId: fact.childExecutorId } : {}) },
        },
      ];
  }
}

/** One tool use of a turn as the runner found it before deciding: not granted, with input its tool refuses, or decided by governance. */
export type CheckedCall = { call: Call } & (
  | { kind: "notGranted" }
  | { kind: "invalid"; problem: string }
  | { kind: "governed"; effect: ToolEffect; childExecutorId?: string; verdict: Verdict }
);

/**
 * Decides a turn's tool uses together, in the model's order: a refusal (not
 * granted, invalid input, governance) or an intent. After one governance
 * refusal the rest of the turn's governed calls are refused for the same limit
 * (its events ride with the first refusal only), whatever governance answered
 * for them.
 */
export function decideCalls(s: ExecutorState, role: RoleRecord, turn: number, checked: readonly CheckedCall[]): Draft[] {
  let refusal: { limit: string; reason: string } | null = null;
  return checked.flatMap((c): Draft[] => {
    switch (c.kind) {
      case "notGranted":
        return [screenCall(s, c.call) ?? unexpected(`${c.call.toolUseId} was found not granted, but ${c.call.name} is granted`)];
      case "invalid":
        return decideCall(role, turn, c.call, { kind: "invalid", problem: c.problem });
      case "governed": {
        const { verdict } = c;
        if (refusal) return decideCall(role, turn, c.call, { kind: "refused", ...refusal, events: [] });
        if (verdict.ok) return decideCall(role, turn, c.call, { kind: "allowed", effect: c.effect, childExecutorId: c.childExecutorId, events: verdict.events });
        refusal = { limit: verdict.limit, reason: verdict.reason };
        return decideCall(role, turn, c.call, { kind: "refused", ...refusal, events: verdict.events });
      }
    }
  });
}

const unexpected = (message: string): never => {
  throw new Error(message);
};
