import { HANDOFF_TOOL, handoffToolSpecFor } from "../../handoff/index.ts";
import type { ToolSpec } from "../../models/types.ts";
import { DELEGATE_TOOL } from "../../tools/index.ts";
import { ANSWER_TOOL, type ConsumedHandoffs, answerToolSpecFor } from "./answer.ts";
import { narrowDelegateTools } from "./delegation.ts";
import { evidencedAnswerToolSpecFor } from "./evidencedAnswer.ts";
import type { ExecutorState } from "../fold/executorState.ts";

/**
 * The executor's tool specs with every field the runtime checks against a
 * closed set narrowed to that set, as it stands in `s`: delegate's tools, the
 * answer's citations, the handoff's evidence and artifacts. Pure, so a rebuilt
 * transcript sends the same specs; cached while the facts they depend on are
 * the same objects (the fold replaces them, never edits them).
 */
export function narrowToolSpecs(tools: ToolSpec[], s: ExecutorState): ToolSpec[] {
  const facts: object = s.role === "main" && !s.singleAgent ? s.children : s.toolResults;
  let byFacts = cache.get(tools);
  if (!byFacts) cache.set(tools, (byFacts = new WeakMap()));
  let narrowed = byFacts.get(facts);
  if (!narrowed) {
    narrowed = tools.map((spec) => narrow(spec, s));
    byFacts.set(facts, narrowed);
  }
  return narrowed;
}

const cache = new WeakMap<ToolSpec[], WeakMap<object, ToolSpec[]>>();

function narrow(spec: ToolSpec, s: ExecutorState): ToolSpec {
  if (spec.name === DELEGATE_TOOL) return narrowDelegateTools(spec, s.grantedTools);
  if (spec.name === ANSWER_TOOL && s.singleAgent) return evidencedAnswerToolSpecFor(s.executorId, ownFacts(s));
  if (spec.name === ANSWER_TOOL && s.role === "main") return answerToolSpecFor(consumedHandoffs(s));
  if (spec.name === HANDOFF_TOOL && s.role === "child") return handoffToolSpecFor(ownFacts(s));
  return spec;
}

/** What this executor's own evidence may cite: its tool results, the markers they printed, its artifacts. */
function ownFacts(s: ExecutorState) {
  return {
    toolResultIds: new Set(Object.keys(s.toolResults)),
    citationsSeen: new Set(s.citationsSeen),
    artifacts: new Map(Object.entries(s.artifacts)),
  };
}

function consumedHandoffs(s: ExecutorState): ConsumedHandoffs {
  return Object.fromEntries(Object.entries(s.children).flatMap(([id, c]) => (c.handoff ? [[id, c.handoff as { findings?: unknown[] }]] : [])));
}
