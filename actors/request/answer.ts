import { z } from "zod";
import type { ToolSpec } from "../../models/types.ts";
import { formatZodIssues } from "../../core/errors.ts";
import { toolSpec } from "../../tools/index.ts";

export const ANSWER_TOOL = "answer";

const Citation = z.object({
  executor: z.string().min(1).describe("child_executor_id of the handoff the claim rests on."),
  finding: z.number().int().nonnegative().describe("Index of the finding in that handoff's findings list."),
});

const BASIS_HELP = "observed: backed by cited findings; judgment: depends on goals or assumptions; not_collected: evidence missing.";

const Claim = z.object({
  text: z.string().trim().min(1),
  basis: z.enum(["observed", "judgment", "not_collected"]).describe(BASIS_HELP),
  citations: z.array(Citation).default([]),
});

/** Main's structured answer: sections of claims, each tied to its basis. */
export const AnswerSchema = z.object({
  summary: z.string().trim().min(1).max(2000),
  sections: z.array(z.object({ heading: z.string().trim().min(1), claims: z.array(Claim).min(1) })).min(1),
});
export type Answer = z.output<typeof AnswerSchema>;

export const answerToolSpec = toolSpec(
  ANSWER_TOOL,
  "Finish the run with your structured answer. Call once, after integrating the handoffs you need.",
  AnswerSchema,
);

/** What validateAnswer is given: the handoffs Main received, by Child executor id. */
export type ConsumedHandoffs = Record<string, { findings?: unknown[] }>;

type Node = { properties: Record<string, Node>; items: Node; required?: string[] } & Record<string, unknown>;

/**
 * The answer tool as validateAnswer will accept it, given the handoffs received
 * so far: a citation names one of those executors and one of its findings; an
 * observed claim must cite; with nothing to cite, no claim can be observed.
 * Set into the schema derived from zod as plain JSON, because deriving schemas
 * with zod costs about a millisecond and this runs for every turn;
 * tests/actors/toolSchemas.test.ts checks it against the same narrowing in zod.
 */
export function answerToolSpecFor(consumed: ConsumedHandoffs): ToolSpec {
  const base = answerToolSpec.input_schema as Node;
  const sections = base.properties.sections;
  const claims = sections.items.properties.claims;
  const claim = narrowClaim(claims.items, consumed);
  const narrowedSections = { ...sections, items: { ...sections.items, properties: { ...sections.items.properties, claims: { ...claims, items: claim } } } };
  return { ...answerToolSpec, input_schema: { ...base, properties: { ...base.properties, sections: narrowedSections } } };
}

function narrowClaim(claim: Node, consumed: ConsumedHandoffs): Record<string, unknown> {
  const { basis, citations } = claim.properties;
  const { enum: _all, ...basisRest } = basis;
  const cite = citations.items;
  const choices = Object.entries(consumed)
    .filter(([, h]) => (h.findings?.length ?? 0) > 0)
    .map(([id, h]) => ({
      ...cite,
      properties: {
        executor: { type: "string", const: id, description: cite.properties.executor.description },
        finding: { ...cite.properties.finding, maximum: h.findings!.length - 1 },
      },
    }));
  const unobserved = { ...basisRest, enum: ["judgment", "not_collected"] };
  if (choices.length === 0) {
    const description = `${basis.description} No handoff with findings has arrived, so nothing can be observed yet.`;
    return { ...claim, properties: { ...claim.properties, basis: { ...unobserved, description }, citations: { maxItems: 0, ...citations } } };
  }
  const items = choices.length === 1 ? choices[0] : { anyOf: choices };
  const { default: _none, ...mustCite } = citations;
  return {
    anyOf: [
      {
        ...claim,
        properties: { ...claim.properties, basis: { ...basisRest, const: "observed" }, citations: { minItems: 1, ...mustCite, items } },
        required: [...claim.required!, "citations"],
      },
      { ...claim, properties: { ...claim.properties, basis: unobserved, citations: { ...citations, items } } },
    ],
  };
}

export type AnswerVerdict = { ok: true; answer: Answer } | { ok: false; feedback: string };

/**
 * Accepts an answer whose observed claims cite findings Main really received.
 * The feedback says what to fix and keeps everything else as it was.
 */
export function validateAnswer(candidate: unknown, consumed: ConsumedHandoffs): AnswerVerdict {
  const parsed = AnswerSchema.safeParse(candidate);
  if (!parsed.success) {
    const where = formatZodIssues(parsed.error.issues);
    return { ok: false, feedback: `The answer does not match its schema (${where}). Fix those fields and call answer again.` };
  }
  const problems: string[] = [];
  parsed.data.sections.forEach((section, s) =>
    section.claims.forEach((claim, c) => {
      const at = `sections.${s}.claims.${c}`;
      if (claim.basis === "observed" && claim.citations.length === 0) {
        problems.push(`${at} is observed but cites nothing: cite the handoff findings it rests on, or mark it judgment or not_collected`);
      }
      for (const cite of claim.citations) {
        const handoff = consumed[cite.executor];
        if (!handoff) problems.push(`${at} cites executor ${cite.executor}, whose handoff you have not received`);
        else if (!handoff.findings || cite.finding >= handoff.findings.length) {
          problems.push(`${at} cites finding ${cite.finding} of ${cite.executor}, which has ${handoff.findings?.length ?? 0} findings`);
        }
      }
    }),
  );
  if (problems.length) {
    const known = Object.entries(consumed).map(([id, h]) => `${id} (${h.findings?.length ?? 0} findings)`).join(", ") || "none";
    return {
      ok: false,
      feedback: `Keep the answer as it is except for these citations: ${problems.join("; ")}. Handoffs received: ${known}.`,
    };
  }
  return { ok: true, answer: parsed.data };
}
