import { type HandoffFacts, HandoffSchema, type Handoff, handoffToolSpecFor, validateHandoff } from "../../handoff/index.ts";
import type { ToolSpec } from "../../models/types.ts";
import { toolSpec } from "../../tools/index.ts";
import { ANSWER_TOOL, type Answer, AnswerSchema, validateAnswer } from "./answer.ts";

/**
 * A single agent's answer (`--single-agent`): no Child hands it findings, so
 * it states its own, under the contract a Child's handoff meets (tool results,
 * verbatim quotes, basis, gaps), and its claims cite those findings by its own
 * executor id. Recorded as a handoff in its own stream, so provenance, the
 * checker and the bundle follow a claim to its sources as for a delegated run.
 */
export const EvidencedAnswerSchema = AnswerSchema.extend({
  evidence: HandoffSchema.describe("Your findings, each citing your own tool results and quoting their exact text: what your observed claims cite."),
});

export const evidencedAnswerToolSpec = toolSpec(
  ANSWER_TOOL,
  "Finish the run with your structured answer and the evidence it rests on. Call once; observed claims cite findings of `evidence` by your executor id.",
  EvidencedAnswerSchema,
);

type Node = { properties: Record<string, Node>; items: Node } & Record<string, unknown>;

/** The spec with citations naming this executor only, and `evidence` narrowed as a Child's handoff is (handoffToolSpecFor). */
export function evidencedAnswerToolSpecFor(executorId: string, facts: HandoffFacts): ToolSpec {
  const base = evidencedAnswerToolSpec.input_schema as Node;
  const sections = base.properties.sections;
  const claims = sections.items.properties.claims;
  const citations = claims.items.properties.citations;
  const executor = { ...citations.items.properties.executor, const: executorId, description: "Your own executor id: the findings of your evidence." };
  const cite = { ...citations.items, properties: { ...citations.items.properties, executor } };
  const claim = { ...claims.items, properties: { ...claims.items.properties, citations: { ...citations, items: cite } } };
  const narrowedSections = { ...sections, items: { ...sections.items, properties: { ...sections.items.properties, claims: { ...claims, items: claim } } } };
  const evidence = { ...handoffToolSpecFor(facts).input_schema, description: base.properties.evidence.description };
  return { ...evidencedAnswerToolSpec, input_schema: { ...base, properties: { ...base.properties, sections: narrowedSections, evidence } } };
}

export type EvidencedAnswerVerdict = { ok: true; answer: Answer; evidence: Handoff } | { ok: false; feedback: string };

/** Accepts the evidence as a Child's handoff would be (validateHandoff), then the answer against those findings (validateAnswer). */
export function validateEvidencedAnswer(candidate: unknown, executorId: string, facts: HandoffFacts): EvidencedAnswerVerdict {
  const { evidence, ...answer } = (candidate && typeof candidate === "object" ? candidate : {}) as Record<string, unknown>;
  const checked = validateHandoff(evidence, facts);
  if (!checked.ok) return { ok: false, feedback: `Keep the summary and sections as they are; fix the evidence: ${checked.feedback}` };
  const verdict = validateAnswer(answer, { [executorId]: checked.handoff });
  return verdict.ok ? { ok: true, answer: verdict.answer, evidence: checked.handoff } : verdict;
}
