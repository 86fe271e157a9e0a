import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson, waitForFinal } from "./harness.ts";

const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, "?");

const CONTENT_TYPES = ["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x", "application/merge-patch+json", "application/xml", ""];

/** Bodies that are wrong in every way the issue names: malformed JSON, wrong types, huge strings, unknown fields. */
const body = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom("{", "{\"question\":", "[1,2", "null", "\"\"", "{\"question\":\"\\ud800\"}", "{}"),
  fc.record({ question: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())) }, { requiredKeys: [] }).map((v) => JSON.stringify(v)),
  fc.record({ question: fc.constant("q"), surprise: fc.anything() }).map((v) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x))),
  fc.record({ question: fc.constant("q"), caps: fc.anything(), models: fc.anything(), allowedProfiles: fc.anything(), reviewer: fc.anything() }, { requiredKeys: ["question"] })
    .map((v) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? String(x) : x))),
  fc.integer({ min: 10_000, max: 200_000 }).map((n) => JSON.stringify({ question: "x".repeat(n) })),
);

forEachEngine("fuzzing every route of the OpenAPI document", (ctx) => describe("fuzz", () => {
  let h: Harness;
  let admin: string;
  let client: string;
  let run: { id: string; child: string; position: number };
  let routes: { method: string; path: string }[];
  before(async () => {
    h = await openHarness(ctx.store, { maxBodyBytes: 64 * 1024 });
    admin = await h.key("admin", h.tenant());
    client = await h.key("client", h.tenant());
    const created = (await (await h.app.request("/v1/runs", postJson(admin, { offline: true, context: "fuzz target" }))).json()) as any;
    const final = await waitForFinal(h.app, admin, created.id);
    run = { id: final.id, child: final.executors.children[0].id, position: final.lastPosition };
    const doc = (await (await h.app.request("/openapi.json")).json()) as any;
    routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops as object).map((method) => ({ method: method.toUpperCase(), path })));
  });
  after(() => h.close());

  test("malformed requests to every documented route never get a 5xx, and every error is problem+json", async () => {
    assert.ok(routes.length >= 10, `the document lists the routes (${routes.length})`);
    const id = fc.oneof(
      fc.constant(run?.id),
      fc.constant(run?.child),
      fc.uuid(),
      fc.string({ maxLength: 40 }),
      fc.constantFrom("..", "%00", "' OR 1=1 --", "😀", "-1", "0", "x".repeat(3000), "a/b", "%2e%2e"),
    );
    const query = fc.dictionary(
      fc.constantFrom("state", "limit", "cursor", "after", "x", "wait", "types", "order", "created_after", "created_before", "metadata[k]", "metadata[", "stream"),
      fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.integer().map(String),
        fc.constant("9".repeat(40)),
        fc.constantFrom("0", "1", "-1", "61", "asc", "desc", "turn,answer.delta", "nope", "2026-12-01T00:00:00Z", "true"),
      ),
      { maxKeys: 3 },
    );
    const request = fc.record({
      route: fc.integer({ min: 0, max: 1000 }),
      method: fc.oneof(fc.constant(null), fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH")),
      id,
      eid: id,
      query,
      body,
      contentType: fc.constantFrom(...CONTENT_TYPES),
      accept: fc.constantFrom("application/json", "text/event-stream", "*/*", "text/html"),
      lastEventId: fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.nat().map(String), fc.constant(String(run?.position ?? 1))), { nil: undefined }),
      idempotencyKey: fc.option(fc.string({ maxLength: 300 }), { nil: undefined }),
      who: fc.constantFrom("admin", "client", "none", "garbage"),
    });
    type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const route = routes[r.route % routes.length];
        const path = route.path.replace("{id}", encodeURIComponent(r.id)).replace("{eid}", encodeURIComponent(r.eid)).replace("{cid}", encodeURIComponent(r.eid));
        const qs = new URLSearchParams(r.query).toString();
        const headers: Record<string, string> = { accept: r.accept };
        if (r.contentType) headers["content-type"] = r.contentType;
        if (r.lastEventId !== undefined) headers["last-event-id"] = ascii(r.lastEventId);
        if (r.idempotencyKey !== undefined) headers["idempotency-key"] = ascii(r.idempotencyKey);
        if (r.who === "admin") Object.assign(headers, bearer(admin));
        if (r.who === "client") Object.assign(headers, bearer(client));
        if (r.who === "garbage") headers.authorization = "Bearer \u0000".replace("\u0000", "zz");
        const method = r.method ?? route.method;
        const res = await h.app.request(`${path}${qs ? `?${qs}` : ""}`, { method, headers, body: method === "GET" ? undefined : r.body });
        const text = await Promise.race([res.text(), new Promise<string>((_, reject) => setTimeout(() => reject(new Error(`${method} ${path} did not finish`)), 30_000))]);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        assert.ok(res.status < 500, `${method} ${path} -> ${res.status}: ${text.slice(0, 300)}`);
        if (res.status >= 400) {
          assert.equal(res.headers.get("content-type"), "application/problem+json", `${method} ${path} -> ${res.status}`);
          const problem = JSON.parse(text);
          assert.equal(problem.status, res.status);
          assert.equal(typeof problem.detail, "string");
          assert.doesNotMatch(text, /\\n\s+at /);
        }
      }),
      {
        numRuns: 300,
        // Each kind of refusal the check below expects, whatever the random draw reaches.
        examples: [
          [{ route: routes.findIndex((r) => r.method === "POST" && r.path === "/v1/runs"), method: null, id: "x", eid: "x", query: {}, body: "question=q", contentType: "text/plain", accept: "application/json", lastEventId: undefined, idempotencyKey: undefined, who: "admin" }],
          [{ route: routes.findIndex((r) => r.method === "GET" && r.path === "/v1/runs/{id}"), method: null, id: "no-such-run", eid: "x", query: { wait: "1" }, body: undefined, contentType: "", accept: "application/json", lastEventId: undefined, idempotencyKey: undefined, who: "client" }],
          // Every route with a dot segment as its id ("%2e%2e" is ".." to a URL parser) and a body over the limit:
          // the path that is left is refused, and a 413 is declared wherever a body is read (CI found the cancel routes').
          ...routes.map((_, route): [FuzzRequest] => [{ route, method: null, id: "%2e%2e", eid: "%2e", query: {}, body: JSON.stringify({ question: "x".repeat(70_000) }), contentType: "application/json", accept: "application/json", lastEventId: undefined, idempotencyKey: undefined, who: "admin" }]),
          [{ route: routes.findIndex((r) => r.method === "GET" && r.path === "/v1/runs"), method: null, id: "x", eid: "x", query: { types: "nope" }, body: undefined, contentType: "", accept: "application/json", lastEventId: undefined, idempotencyKey: undefined, who: "none" }],
        ],
      },
    );
    // The generators reach past the parsers: successes and each kind of refusal all occur.
    const seen = [...statuses.keys()].sort();
    for (const status of [200, 400, 401, 404, 415]) assert.ok(statuses.has(status), `status ${status} among ${seen.join(", ")}`);
    assert.equal((await h.app.request("/healthz")).status, 200, "the server still answers");
    assert.equal((await h.app.request(`/v1/runs/${run.id}`, { headers: bearer(admin) })).status, 200);
  });
}));
