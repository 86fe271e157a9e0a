import { test } from "node:test";
import assert from "node:assert/strict";
import { jcsReference } from "../support/jcsReference.ts";
import fc from "fast-check";
import { z } from "zod";
import { AnswerSchema, answerToolSpec, answerToolSpecFor, validateAnswer } from "../../actors/request/answer.ts";
import { canonicalRequest } from "../../actors/request/buildRequest.ts";
import { DelegateInput, delegateInputFor, delegateToolSpec, narrowDelegateTools } from "../../actors/request/delegation.ts";
import {
  ArtifactRefSchema,
  EvidenceSchema,
  FindingSchema,
  HandoffSchema,
  type HandoffFacts,
  handoffToolSpec,
  handoffToolSpecFor,
  QuoteSchema,
  validateHandoff,
} from "../../handoff/index.ts";
import { type JsonSchema, followSchema } from "../../models/testing/index.ts";
import { listProfiles } from "../../profiles/index.ts";
import { computeGrant, inputJsonSchema } from "../../tools/index.ts";
import { facts } from "../handoff/fixtures.ts";

/** What a model that reads only the schema writes, one item in each list the schema allows to have one. */
const follow = (schema: Record<string, unknown>) => followSchema(schema as JsonSchema, { arrayItems: 1 }) as Record<string, unknown>;

test("delegate: a schema-following model picks an installed profile; with a free string it invents one", async () => {
  const installed = (await listProfiles()).map((p) => p.id);
  const input = follow(delegateToolSpec(await listProfiles()).input_schema);
  assert.ok(installed.includes(input.profile as string), `profile ${String(input.profile)} is not installed`);
  assert.ok(delegateInputFor(installed).safeParse(input).success);

  // The schema as it was: profile a free string.
  const invented = follow(inputJsonSchema(DelegateInput));
  assert.equal(invented.profile, "profile-value");
  assert.ok(!installed.includes(invented.profile as string));
  assert.equal(delegateInputFor(installed).safeParse(invented).success, false, "the zod check refuses an invented profile");
});

test("delegate: tools are an enum of what the delegating executor holds, and the zod check refuses others", async () => {
  const held = ["search_corpus", "read_document"];
  const catalog = { search_corpus: "read_only", read_document: "read_only", quote_passage: "read_only" } as const;
  const spec = narrowDelegateTools(delegateToolSpec(await listProfiles()), held);
  const tools = (follow({ ...spec.input_schema, required: ["tools"] }).tools as string[]);
  assert.deepEqual(tools, ["search_corpus"]);
  const grant = (requested: string[]) => computeGrant({ requested, parentGrant: held, rootAllowed: Object.keys(catalog), catalog, isChild: true, depth: 1 });
  assert.deepEqual(grant(tools).granted, ["search_corpus"]);

  // Free strings: the model names a tool nobody registered, and the Child gets nothing.
  const free = follow({ ...inputJsonSchema(DelegateInput), required: ["tools"] }).tools as string[];
  assert.deepEqual(grant(free).granted, []);
  const installed = (await listProfiles()).map((p) => p.id);
  assert.equal(delegateInputFor(installed, held).safeParse({ question: "q", context: "", done_when: "d", profile: installed[0], tools: free }).success, false);
});

test("answer: citations follow the handoffs received, so a schema-following answer is accepted", () => {
  const consumed = { "child-a": { findings: [{}, {}] }, "child-b": { findings: [] } };
  const answer = follow(answerToolSpecFor(consumed).input_schema);
  const verdict = validateAnswer(answer, consumed);
  assert.ok(verdict.ok, verdict.ok ? "" : verdict.feedback);
  assert.deepEqual((answer.sections as { claims: { citations: unknown }[] }[])[0].claims[0].citations, [{ executor: "child-a", finding: 0 }]);

  // With nothing to cite, observed is not on offer (the validator would refuse it without citations).
  assert.ok(validateAnswer(follow(answerToolSpecFor({}).input_schema), {}).ok);

  // The schema as it was: an invented executor id.
  const free = validateAnswer(follow(answerToolSpec.input_schema), consumed);
  assert.equal(free.ok, false);
});

test("handoff: evidence and artifacts follow what the executor really did, so a schema-following handoff is accepted", () => {
  const handoff = follow(handoffToolSpecFor(facts).input_schema);
  const verdict = validateHandoff(handoff, facts);
  assert.ok(verdict.ok, verdict.ok ? "" : verdict.feedback);
  assert.equal((handoff.findings as unknown[]).length, 1);
  assert.equal((handoff.artifacts as unknown[]).length, 1);

  const nothing = { toolResultIds: new Set<string>(), citationsSeen: new Set<string>(), artifacts: new Map() };
  assert.ok(validateHandoff(follow(handoffToolSpecFor(nothing).input_schema), nothing).ok);

  // The schema as it was: invented tool ids, markers and artifacts.
  assert.equal(validateHandoff(follow(handoffToolSpec.input_schema), facts).ok, false);
});

// The narrowing written in zod, the way the schemas themselves are: the JSON the runtime builds by hand
// (for speed, every turn) must be exactly what zod derives from it.
const jsonOf = (schema: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
};
const closedList = (values: string[], description?: string) =>
  (values.length ? z.array(z.enum(values as [string, ...string[]])) : z.array(z.string()).max(0)).describe(description!);

function answerOracle(consumed: Record<string, { findings?: unknown[] }>) {
  const Claim = AnswerSchema.shape.sections.element.shape.claims.element;
  const Citation = Claim.shape.citations.unwrap().element;
  const help = Claim.shape.basis.description!;
  const citations = Object.entries(consumed)
    .filter(([, h]) => (h.findings?.length ?? 0) > 0)
    .map(([id, h]) => Citation.extend({ executor: z.literal(id).describe(Citation.shape.executor.description!), finding: Citation.shape.finding.max(h.findings!.length - 1) }));
  const unobserved = z.enum(["judgment", "not_collected"]).describe(help);
  const claim = citations.length
    ? z.union([
        Claim.extend({ basis: z.literal("observed").describe(help), citations: z.array(citations.length === 1 ? citations[0] : z.union(citations)).min(1) }),
        Claim.extend({ basis: unobserved, citations: z.array(citations.length === 1 ? citations[0] : z.union(citations)).default([]) }),
      ])
    : Claim.extend({
        basis: unobserved.describe(`${help} No handoff with findings has arrived, so nothing can be observed yet.`),
        citations: z.array(Citation).max(0).default([]),
      });
  return AnswerSchema.extend({ sections: z.array(z.object({ heading: z.string().trim().min(1), claims: z.array(claim).min(1) })).min(1) });
}

/** A quote's toolUseId is one of the executor's successful calls; none, no quote. */
function quotesOf(ids: string[]) {
  const description = EvidenceSchema.shape.quotes.description!;
  if (ids.length === 0) return z.array(QuoteSchema).max(0).optional().describe(description);
  const toolUseId = z.enum(ids as [string, ...string[]]).describe(QuoteSchema.shape.toolUseId.description!);
  return z.array(QuoteSchema.extend({ toolUseId })).optional().describe(description);
}

function handoffOracle(f: HandoffFacts) {
  const evidence = EvidenceSchema.extend({
    toolResults: closedList([...f.toolResultIds], EvidenceSchema.shape.toolResults.description),
    citations: closedList([...f.citationsSeen], EvidenceSchema.shape.citations.description),
    quotes: quotesOf([...f.toolResultIds]),
  });
  const produced = [...f.artifacts].map(([id, a]) => ArtifactRefSchema.extend({ id: z.literal(id), path: z.literal(a.path), sha256: z.literal(a.sha256) }));
  const artifact = produced.length === 0 ? null : produced.length === 1 ? produced[0] : z.union(produced);
  return HandoffSchema.extend({
    // The model writes findings without the runtime's gathered mark.
    findings: z.array(FindingSchema.omit({ gathered: true }).extend({ evidence })),
    artifacts: (artifact ? z.array(artifact) : z.array(ArtifactRefSchema).max(0)).describe(HandoffSchema.shape.artifacts.description!),
  });
}

test("the narrowed answer and handoff schemas are exactly what zod derives for the same narrowing", () => {
  const cases: Record<string, { findings?: unknown[] }>[] = [{}, { a: { findings: [1] } }, { a: { findings: [1, 2] }, b: { findings: [] }, c: { findings: [3] } }];
  for (const consumed of cases) {
    assert.deepEqual(answerToolSpecFor(consumed).input_schema, jsonOf(answerOracle(consumed)));
  }
  const none: HandoffFacts = { toolResultIds: new Set(), citationsSeen: new Set(), artifacts: new Map() };
  const one: HandoffFacts = { toolResultIds: new Set(["t1"]), citationsSeen: new Set(), artifacts: new Map([["a1", { path: "p", sha256: "s" }]]) };
  for (const f of [none, one, facts]) assert.deepEqual(handoffToolSpecFor(f).input_schema, jsonOf(handoffOracle(f)));
});

test("property: the narrowed handoff spec's canonical text, filled into its template, is RFC 8785's text of the spec", () => {
  const id = fc.string({ unit: "grapheme", maxLength: 12 });
  const handoffFacts = fc.record({
    toolResultIds: fc.uniqueArray(id, { maxLength: 5 }).map((ids) => new Set(ids)),
    citationsSeen: fc.uniqueArray(id, { maxLength: 4 }).map((ids) => new Set(ids)),
    artifacts: fc.uniqueArray(fc.tuple(id, fc.record({ path: id, sha256: id })), { maxLength: 3, selector: ([k]) => k }).map((a) => new Map(a)),
  });
  fc.assert(
    fc.property(handoffFacts, (f) => {
      const spec = handoffToolSpecFor(f);
      const request = { model: "m", system: "s", maxTokens: 1, messages: [], tools: [spec] };
      assert.equal(canonicalRequest(request), jcsReference(request));
    }),
    { numRuns: 300 },
  );
});
