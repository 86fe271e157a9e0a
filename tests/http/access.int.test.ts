import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Role } from "../../http/auth/principal.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson, waitForFinal } from "./harness.ts";

type Who = "clientA" | "clientB" | "auditorA" | "auditorB" | "admin" | "revoked" | "anonymous";

interface Route {
  name: string;
  request: (run: { id: string; child: string }) => [string, RequestInit?];
  /** Expected status per caller; the run belongs to tenant A and has settled. */
  expect: Record<Who, number>;
}

const READ = { clientA: 200, clientB: 404, auditorA: 200, auditorB: 404, admin: 200, revoked: 401, anonymous: 401 };
// A settled run cannot be cancelled (409) by those who may cancel it; auditors may not cancel (403) before
// anything about the run is looked up, so a tenant learns nothing of another's runs either way.
const CANCEL = { clientA: 409, clientB: 404, auditorA: 403, auditorB: 403, admin: 409, revoked: 401, anonymous: 401 };

const ROUTES: Route[] = [
  { name: "POST /v1/runs", request: () => ["/v1/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ offline: true, context: "q" }) }], expect: { clientA: 201, clientB: 201, auditorA: 403, auditorB: 403, admin: 201, revoked: 401, anonymous: 401 } },
  { name: "GET /v1/runs", request: () => ["/v1/runs"], expect: { clientA: 200, clientB: 200, auditorA: 200, auditorB: 200, admin: 200, revoked: 401, anonymous: 401 } },
  { name: "GET /v1/runs/{id}", request: (r) => [`/v1/runs/${r.id}`], expect: READ },
  { name: "POST /v1/runs/{id}/cancel", request: (r) => [`/v1/runs/${r.id}/cancel`, { method: "POST" }], expect: CANCEL },
  { name: "POST /v1/runs/{id}/executors/{eid}/cancel", request: (r) => [`/v1/runs/${r.id}/executors/${r.child}/cancel`, { method: "POST" }], expect: CANCEL },
  { name: "GET /v1/runs/{id}/events", request: (r) => [`/v1/runs/${r.id}/events`], expect: READ },
  { name: "GET /v1/runs/{id}/events (SSE)", request: (r) => [`/v1/runs/${r.id}/events`, { headers: { accept: "text/event-stream" } }], expect: READ },
  { name: "GET /v1/runs/{id}/executors/{eid}/transcript", request: (r) => [`/v1/runs/${r.id}/executors/${r.child}/transcript`], expect: READ },
  { name: "GET /v1/runs/{id}/executors/{eid}/handoff", request: (r) => [`/v1/runs/${r.id}/executors/${r.child}/handoff`], expect: READ },
  { name: "GET /v1/runs/{id}/verify", request: (r) => [`/v1/runs/${r.id}/verify`], expect: READ },
  { name: "GET /v1/runs/{id}/claims", request: (r) => [`/v1/runs/${r.id}/claims`], expect: READ },
  { name: "GET /v1/runs/{id}/claims/{cid}", request: (r) => [`/v1/runs/${r.id}/claims/c1`], expect: READ },
  { name: "GET /v1/runs/{id}/report", request: (r) => [`/v1/runs/${r.id}/report`], expect: READ },
];

forEachEngine("tenant isolation and roles, every route", (ctx) => describe("table", () => {
  let h: Harness;
  const keys = {} as Record<Who, string | null>;
  const run = { id: "", child: "" };
  before(async () => {
    h = await openHarness(ctx.store);
    const [a, b, x] = [h.tenant("a"), h.tenant("b"), h.tenant("x")];
    const make = (role: Role, t: string) => h.key(role, t);
    Object.assign(keys, {
      clientA: await make("client", a),
      clientB: await make("client", b),
      auditorA: await make("auditor", a),
      auditorB: await make("auditor", b),
      admin: await make("admin", x),
      revoked: await h.revokedKey("client", a),
      anonymous: null,
    });
    const created = (await (await h.app.request("/v1/runs", postJson(keys.clientA!, { offline: true, context: "owned by A" }))).json()) as any;
    const final = await waitForFinal(h.app, keys.clientA!, created.id);
    run.id = final.id;
    run.child = final.executors.children[0].id;
  });
  after(() => h.close());

  for (const route of ROUTES) {
    for (const who of Object.keys(route.expect) as Who[]) {
      test(`${route.name} as ${who}: ${route.expect[who]}`, async () => {
        const [path, init = {}] = route.request(run);
        const headers = { ...(init.headers as Record<string, string>), ...(keys[who] ? bearer(keys[who]!) : {}) };
        const res = await h.app.request(path, { ...init, headers });
        assert.equal(res.status, route.expect[who], await res.clone().text());
        if (res.status >= 400) assert.equal(res.headers.get("content-type"), "application/problem+json");
        // The role named with its article: "an auditor key", never "a auditor key".
        if (res.status === 403) assert.match(((await res.clone().json()) as { detail: string }).detail, /^an auditor key may not \w+ runs$/);
        else await res.body?.cancel();
      });
    }
  }

  test("a tenant's list holds only its runs; admin sees every tenant's", async () => {
    const ids = async (who: Who) => ((await (await h.app.request("/v1/runs?limit=200", { headers: bearer(keys[who]!) })).json()) as any).data.map((r: any) => r.id);
    assert.ok((await ids("clientA")).includes(run.id));
    assert.ok((await ids("auditorA")).includes(run.id));
    assert.ok(!(await ids("clientB")).includes(run.id));
    assert.ok(!(await ids("auditorB")).includes(run.id));
    assert.ok((await ids("admin")).includes(run.id));
  });

  test("an Idempotency-Key of tenant A replayed by tenant B starts B's own run, never reveals A's", async () => {
    const body = { offline: true, context: "same key" };
    const a = (await (await h.app.request("/v1/runs", postJson(keys.clientA!, body, { "idempotency-key": "shared" }))).json()) as any;
    const b = (await (await h.app.request("/v1/runs", postJson(keys.clientB!, body, { "idempotency-key": "shared" }))).json()) as any;
    assert.notEqual(a.id, b.id);
    assert.equal(b.tenant, (await (await h.app.request(`/v1/runs/${b.id}`, { headers: bearer(keys.clientB!) })).json() as any).tenant);
    await waitForFinal(h.app, keys.clientA!, a.id);
    await waitForFinal(h.app, keys.clientB!, b.id);
  });
}));
