import { fromZodIssues } from "../core/errors.ts";
import type { HandoffFacts } from "./handoffFacts.ts";
import { HandoffSchema, type Handoff } from "./handoffSchema.ts";
import { locateQuote } from "./locateQuote.ts";
import { repairFeedback } from "./repairFeedback.ts";
import { reviewReferences, type HandoffIssue } from "./reviewReferences.ts";
import { salvageHandoff } from "./salvageHandoff.ts";

export type HandoffVerdict =
  | { ok: true; handoff: Handoff }
  | {
      ok: false;
      issues: HandoffIssue[];
      /** For the model: how to repair while keeping the valid evidence. */
      feedback: string;
      /** For the runtime: the best valid partial handoff, if repair does not succeed. */
      salvage: Handoff;
    };

/**
 * Accepts a handoff only if it matches the schema and every reference points at
 * something this executor really did: a recorded tool call, a marker its tools
 * printed, an artifact it produced. Pure; the facts come from the log.
 */
export function validateHandoff(candidate: unknown, facts: HandoffFacts): HandoffVerdict {
  const parsed = HandoffSchema.safeParse(candidate);
  const schemaIssues: HandoffIssue[] = parsed.success
    ? []
    : fromZodIssues(parsed.error.issues).map((i) => ({ ...i, kind: "schema" as const }));
  const review = reviewReferences(candidate, facts);
  const issues = [...schemaIssues, ...review.issues];
  if (parsed.success && issues.length === 0) return { ok: true, handoff: withLocatedQuotes(parsed.data, facts) };
  return {
    ok: false,
    issues,
    feedback: repairFeedback(issues, review.kept, facts),
    salvage: salvageHandoff(candidate, facts),
  };
}

/** Every quote with where the runtime found it (blob, offsets, page), never where the model said it was. */
function withLocatedQuotes(handoff: Handoff, facts: HandoffFacts): Handoff {
  if (!handoff.findings.some((f) => f.evidence.quotes)) return handoff;
  return {
    ...handoff,
    findings: handoff.findings.map((f) => {
      if (!f.evidence.quotes) return f;
      const quotes = f.evidence.quotes.map(({ source: _claimed, ...q }) => {
        const found = locateQuote(q, facts);
        // reviewQuotes refused any quote that is not found, so every one is located here.
        if (found.kind !== "located") throw new Error(`quote of ${q.toolUseId} passed review but was not located (${found.kind})`);
        const { page: _given, ...rest } = q;
        return { ...rest, ...(found.page === undefined ? {} : { page: found.page }), source: found.source };
      });
      return { ...f, evidence: { ...f.evidence, quotes } };
    }),
  };
}
