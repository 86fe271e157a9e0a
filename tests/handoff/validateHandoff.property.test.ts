import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { classifyReference, validateHandoff, type HandoffFacts } from "../../handoff/index.ts";

const toolId = fc.stringMatching(/^toolu_[a-z0-9]{1,4}$/);
const marker = fc
  .tuple(fc.constantFrom("adiv-factsheet", "adiv-prospectus", "user-portfolio"), fc.stringMatching(/^p[0-9]{1,2}$/))
  .map(([doc, sec]) => `[[corpus:${doc}#${sec}]]`);

const factsArb = fc
  .record({
    tools: fc.uniqueArray(toolId, { maxLength: 5 }),
    markers: fc.uniqueArray(marker, { maxLength: 5 }),
    artifacts: fc.uniqueArray(fc.stringMatching(/^art-[a-z]{1,3}$/), { maxLength: 3 }),
  })
  .map(
    ({ tools, markers, artifacts }): HandoffFacts => ({
      toolResultIds: new Set(tools),
      citationsSeen: new Set(markers),
      artifacts: new Map(artifacts.map((id) => [id, { path: `work/${id}.csv`, sha256: "a".repeat(64) }])),
    }),
  );

/** Candidates that mix real references (in either field), invented ones and junk. */
function candidateArb(facts: HandoffFacts) {
  const known = [...facts.toolResultIds, ...facts.citationsSeen];
  const ref = fc.oneof(known.length ? fc.constantFrom(...known) : toolId, toolId, marker, fc.string({ maxLength: 8 }));
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: arb }, fc.constant(undefined), fc.anything());
  const finding = fc.record({
    claim: maybe(fc.string({ maxLength: 40 })),
    evidence: maybe(fc.record({ toolResults: fc.array(ref, { maxLength: 4 }), citations: fc.array(ref, { maxLength: 4 }) })),
    confidence: maybe(fc.constantFrom("high", "medium", "low", "certain")),
  });
  const artifactIds = [...facts.artifacts.keys()];
  const artifact = fc.record({
    id: artifactIds.length ? fc.oneof(fc.constantFrom(...artifactIds), fc.string({ maxLength: 5 })) : fc.string({ maxLength: 5 }),
    path: fc.string({ maxLength: 10 }),
    sha256: fc.constantFrom("a".repeat(64), "b"),
  });
  const strs = fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 });
  return fc.record(
    {
      summary: maybe(fc.string({ maxLength: 1300 })),
      findings: maybe(fc.array(finding, { maxLength: 4 })),
      measurementBasis: maybe(fc.record({ sources: strs, dates: strs, units: strs, scope: fc.string({ maxLength: 10 }) })),
      artifacts: maybe(fc.array(artifact, { maxLength: 3 })),
      gaps: maybe(strs),
      executionState: maybe(fc.constantFrom("completed", "partial", "not_executed", "unknown_effects", "done")),
      confidence: maybe(fc.constantFrom("high", "medium", "low")),
      caveats: maybe(strs),
    },
    { requiredKeys: [] },
  );
}

/** Candidates built only from what the facts record, each reference in its own field. */
function validCandidateArb(facts: HandoffFacts) {
  const pick = (xs: string[]) => (xs.length ? fc.subarray(xs) : fc.constant([]));
  const strs = fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 });
  return fc.record({
    summary: fc.string({ maxLength: 1200 }),
    findings: fc.array(
      fc.record({
        claim: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s !== ""),
        evidence: fc.record({ toolResults: pick([...facts.toolResultIds]), citations: pick([...facts.citationsSeen]) }),
        confidence: fc.constantFrom("high" as const, "medium" as const, "low" as const),
      }),
      { maxLength: 4 },
    ),
    measurementBasis: fc.record({ sources: strs, dates: strs, units: strs, scope: fc.string({ maxLength: 10 }) }),
    artifacts: pick([...facts.artifacts.keys()]).map((ids) => ids.map((id) => ({ id, ...facts.artifacts.get(id)! }))),
    gaps: strs,
    executionState: fc.constantFrom("completed" as const, "partial" as const, "not_executed" as const, "unknown_effects" as const),
    confidence: fc.constantFrom("high" as const, "medium" as const, "low" as const),
    caveats: strs,
  });
}

test("property: a handoff that cites only recorded facts, each in its own field, is accepted as is", () => {
  fc.assert(
    fc.property(
      factsArb.chain((facts) => fc.tuple(fc.constant(facts), validCandidateArb(facts))),
      ([facts, candidate]) => {
        const verdict = validateHandoff(candidate, facts);
        assert.ok(verdict.ok, verdict.ok ? "" : verdict.feedback);
        // JSON round trip: fast-check builds null-prototype records; the parse returns plain objects.
        assert.deepEqual(verdict.handoff, JSON.parse(JSON.stringify(candidate)));
      },
    ),
    { numRuns: 300 },
  );
});

const scenario = factsArb.chain((facts) => fc.tuple(fc.constant(facts), candidateArb(facts)));

test("property: the salvage of any rejected candidate validates against the same facts", () => {
  fc.assert(
    fc.property(scenario, ([facts, candidate]) => {
      const verdict = validateHandoff(candidate, facts);
      if (verdict.ok) return;
      const again = validateHandoff(verdict.salvage, facts);
      assert.ok(again.ok, again.ok ? "" : again.feedback);
    }),
    { numRuns: 400 },
  );
});

test("property: the salvage keeps every valid reference of every finding that has a claim", () => {
  fc.assert(
    fc.property(scenario, ([facts, candidate]) => {
      const verdict = validateHandoff(candidate, facts);
      if (verdict.ok) return;
      const salvaged = new Set(verdict.salvage.findings.flatMap((f) => [...f.evidence.toolResults, ...f.evidence.citations]));
      const findings = Array.isArray(candidate.findings) ? candidate.findings : [];
      for (const f of findings) {
        if (typeof f?.claim !== "string" || f.claim.trim() === "" || typeof f.evidence !== "object" || f.evidence === null) continue;
        for (const field of ["toolResults", "citations"] as const) {
          const refs: unknown = (f.evidence as Record<string, unknown>)[field];
          if (!Array.isArray(refs)) continue;
          for (const r of refs) {
            if (typeof r === "string" && classifyReference(r.trim(), field, facts).kind === "valid") {
              assert.ok(salvaged.has(r.trim()), `valid reference ${r} was kept`);
            }
          }
        }
      }
    }),
    { numRuns: 400 },
  );
});

test("property: feedback never asks for an empty list", () => {
  fc.assert(
    fc.property(scenario, ([facts, candidate]) => {
      const verdict = validateHandoff(candidate, facts);
      // The model's own references are quoted back to it ("[]" may be one); only our words count.
      if (!verdict.ok) assert.doesNotMatch(verdict.feedback.replace(/"(?:[^"\\\n]|\\.)*"/g, '""'), /empty|\[\]/i);
    }),
    { numRuns: 300 },
  );
});
