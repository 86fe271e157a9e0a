import { test } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { createApp } from "../../http/app.ts";
import type { AppDeps } from "../../http/deps.ts";
import { openApiContract } from "../support/openApiContract.ts";

/**
 * The OpenAPI document is exact (issue 33, item 7), checked with an independent
 * validator (ajv): a nullable reference accepts null (a generated client types
 * it `X | null`), every outcome kind a transcript can have is in the schema, and
 * the validator the API suites run every response through (tests/http/harness.ts)
 * does catch a body that breaks the document.
 */
const app = createApp({ auth: "none", database: {}, runs: {}, reads: {}, hub: {}, log: () => {} } as unknown as AppDeps);
const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Ariadne API", version: "1.0.0" } }) as unknown as {
  paths: Record<string, Record<string, never>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};
const ajv = new Ajv2020({ strict: false });
const schemaAt = (pointer: string) => ajv.compile({ $ref: `#${pointer}`, components: doc.components });
const eventRef = { eventId: "e1", streamId: "executor-x", streamVersion: 1, globalPosition: 1, hash: "a".repeat(64) };

test("a nullable reference accepts null, and still refuses what is neither null nor the referenced shape", () => {
  const nullable = [
    "/components/schemas/RunClaims/properties/answer",
    "/components/schemas/RunClaim/properties/answer",
    "/components/schemas/ClaimFinding/properties/handoff",
    "/components/schemas/ClaimFinding/properties/child/properties/admission",
    "/components/schemas/ClaimToolCall/properties/intent",
    "/components/schemas/ClaimToolCall/properties/outcome",
  ];
  for (const pointer of nullable) {
    const validate = schemaAt(pointer);
    assert.equal(validate(null), true, `${pointer} refuses null: ${JSON.stringify(validate.errors)}`);
    assert.equal(validate("not an event"), false, `${pointer} accepts a string`);
  }
  assert.equal(schemaAt("/components/schemas/ClaimToolCall/properties/intent")(eventRef), true);
});

test("no schema in the document is an allOf that needs null from one member and an object from another (which no value meets)", () => {
  const found: string[] = [];
  const walk = (node: unknown, path: string) => {
    if (!node || typeof node !== "object") return;
    const n = node as { allOf?: { type?: unknown }[] };
    if (Array.isArray(n.allOf) && n.allOf.some((m) => Array.isArray(m.type) && m.type.includes("null"))) found.push(path);
    for (const [k, v] of Object.entries(node)) walk(v, `${path}/${k}`);
  };
  walk(doc, "");
  assert.deepEqual(found, []);
});

test("every outcome kind a transcript records is in the document: a Checker's is check", () => {
  const validate = schemaAt("/components/schemas/Transcript/properties/outcome");
  for (const kind of ["handoff", "answer", "cancelled", "failed", "check"]) assert.equal(validate({ kind }), true, `${kind}: ${JSON.stringify(validate.errors)}`);
  assert.equal(validate({ kind: "guessed" }), false, "an unknown kind is refused");
});

test("the response check catches an undeclared status, a missing field and a wrong type (seeded errors)", () => {
  const check = openApiContract(doc as never);
  const problem = { type: "urn:ariadne:problem:NOT_FOUND", title: "Not Found", status: 404, detail: "no run x" };
  assert.equal(check("GET", "/v1/runs/x", { status: 404, contentType: "application/problem+json", body: problem }), null);
  assert.match(check("GET", "/v1/runs/x", { status: 418, contentType: "application/problem+json", body: problem }) ?? "", /418 is not declared/);
  const { detail: _, ...noDetail } = problem;
  assert.match(check("GET", "/v1/runs/x", { status: 404, contentType: "application/problem+json", body: noDetail }) ?? "", /detail/);
  assert.match(check("GET", "/v1/runs/x", { status: 404, contentType: "application/problem+json", body: { ...problem, status: "404" } }) ?? "", /status/);
});
