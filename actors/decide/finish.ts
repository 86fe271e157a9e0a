import { type HandoffFacts, type UnknownEffect, markUnknownEffects, validateHandoff } from "../../handoff/index.ts";
import { validateAnswer } from "../request/answer.ts";
import { validateCheckSubmission } from "../request/checkSubmission.ts";
import { validateEvidencedAnswer } from "../request/evidencedAnswer.ts";
import type { Call, ExecutorState } from "../fold/executorState.ts";
import type { RoleRecord } from "../request/roles.ts";
import type { Draft } from "./draft.ts";

/**
 * What a handoff may cite: this executor's own recorded tool results, markers
 * and artifacts; what its quotes may come from, and the text of those blobs the
 * runner read for this decision.
 */
export function handoffFacts(s: ExecutorState, blobTexts: ReadonlyMap<string, string> = new Map()): HandoffFacts {
  return {
    toolResultIds: new Set(Object.keys(s.toolResults)),
    artifacts: new Map(Object.entries(s.artifacts)),
    citationsSeen: new Set(s.citationsSeen),
    quotable: new Map(Object.entries(s.toolResults).map(([id, r]) => [id, r.quotable ?? []])),
    discoveryOnly: new Set(Object.entries(s.toolResults).flatMap(([id, r]) => (r.tool === "web_search" ? [id] : []))),
    serverSearches: new Set(s.messages.flatMap((m) => (m.role === "assistant" ? m.content.flatMap((b) => (b.type === "server_tool_use" ? [b.id] : [])) : []))),
    blobTexts,
  };
}

const reject = (call: Call, message: string): Draft => ({
  type: "tool_failed",
  data: { toolUseId: call.toolUseId, tool: call.name, reason: "rejected_result", message },
});

/** A Child's (or Reviewer's) handoff call: committed when valid, else rejected with feedback that says how to repair it. */
export function finishWithHandoff(s: ExecutorState, call: Call, blobTexts?: ReadonlyMap<string, string>): Draft[] {
  const verdict = validateHandoff(call.input, handoffFacts(s, blobTexts));
  if (!verdict.ok) return [reject(call, verdict.feedback)];
  return [
    { type: "handoff_committed", data: { handoff: markUnknownEffects(verdict.handoff, unknownEffectsOf(s)), repairs: s.repairs, forced: false } },
    { type: "settled", data: { outcome: "handed_off" } },
  ];
}

/** This executor's calls recorded `effect_unknown`, with their tools' names (from the turns that asked for them). */
export function unknownEffectsOf(s: ExecutorState): UnknownEffect[] {
  const names = new Map<string, string>();
  for (const m of s.messages) if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use") names.set(b.id, b.name);
  return s.unknownEffects.map((toolUseId) => ({ toolUseId, tool: names.get(toolUseId) ?? "a tool" }));
}

/** Handoffs this executor holds, by Child id: what an answer may cite. */
export function heldHandoffs(s: ExecutorState): Record<string, { findings?: unknown[]; summary?: unknown }> {
  return Object.fromEntries(Object.entries(s.children).filter(([, c]) => c.handoff).map(([id, c]) => [id, c.handoff as { findings?: unknown[] }]));
}

/**
 * Main's answer call: settled when every observed claim cites a finding Main
 * really received. Main delegated and no Child handed anything back (each
 * failed, was cancelled or refused): that is not an answer to the question but
 * what Main could say without its Children, so it is settled partial.
 */
export function finishWithAnswer(s: ExecutorState, call: Call): Draft[] {
  const verdict = validateAnswer(call.input, heldHandoffs(s));
  if (!verdict.ok) return [reject(call, verdict.feedback)];
  return [{ type: "settled", data: { outcome: "answered", answer: verdict.answer, ...(noChildHandedOff(s) ? { partial: true } : {}) } }];
}

/**
 * A single agent's answer call: its evidence is committed as its own handoff
 * (what its claims cite, so provenance reads it as a Child's), then the answer.
 */
export function finishWithEvidencedAnswer(s: ExecutorState, call: Call, blobTexts?: ReadonlyMap<string, string>): Draft[] {
  const verdict = validateEvidencedAnswer(call.input, s.executorId, handoffFacts(s, blobTexts));
  if (!verdict.ok) return [reject(call, verdict.feedback)];
  return [
    { type: "handoff_committed", data: { handoff: markUnknownEffects(verdict.evidence, unknownEffectsOf(s)), repairs: s.repairs, forced: false } },
    { type: "settled", data: { outcome: "answered", answer: verdict.answer } },
  ];
}

/** Main delegated, every delegation has ended, and none of them brought back a handoff. */
export function noChildHandedOff(s: Pick<ExecutorState, "children">): boolean {
  const delegated = Object.values(s.children);
  return delegated.length > 0 && delegated.every((c) => c.consumed && !c.handoff);
}

/** The Checker's submit_check call: its verdicts recorded, then settled; a malformed one rejected with feedback. */
export function finishWithCheck(call: Call): Draft[] {
  const verdict = validateCheckSubmission(call.input);
  if (!verdict.ok) return [reject(call, verdict.feedback)];
  return [
    { type: "check_submitted", data: verdict.check },
    { type: "settled", data: { outcome: "checked" } },
  ];
}

/** The terminal call, by what the role finishes with: accepted (final events) or rejected with repair feedback. */
export function finish(role: Pick<RoleRecord, "resultName" | "ownEvidence">, s: ExecutorState, call: Call, blobTexts?: ReadonlyMap<string, string>): Draft[] {
  if (role.resultName === "check") return finishWithCheck(call);
  if (role.ownEvidence) return finishWithEvidencedAnswer(s, call, blobTexts);
  return role.resultName === "answer" ? finishWithAnswer(s, call) : finishWithHandoff(s, call, blobTexts);
}
