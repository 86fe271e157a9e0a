import { test } from "node:test";
import assert from "node:assert/strict";
import { answerToolSpec, answerToolSpecFor, validateAnswer } from "../../actors/answer.ts";
import { DelegateInput, delegateInputFor, delegateToolSpec, narrowDelegateTools } from "../../actors/delegation.ts";
import { handoffToolSpec, handoffToolSpecFor, validateHandoff } from "../../handoff/index.ts";
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
