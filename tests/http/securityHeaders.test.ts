import { test } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../../http/app.ts";
import type { AppDeps } from "../../http/deps.ts";

// No route below reaches the database: keyless requests fail before a lookup, preflights before auth.
const deps = (extra: Partial<AppDeps> = {}) => ({ database: {}, runs: {}, reads: {}, hub: {}, log: () => {}, ...extra }) as unknown as AppDeps;
const ORIGIN = "https://app.example.com";

test("every answer carries X-Content-Type-Options: nosniff (JSON, problem, HTML, asset, 404, 405)", async () => {
  const app = createApp(deps());
  for (const [method, path] of [["GET", "/openapi.json"], ["GET", "/v1/runs"], ["GET", "/docs"], ["GET", "/docs/init.js"], ["GET", "/nowhere"], ["PUT", "/docs"], ["OPTIONS", "/v1/runs"]] as const) {
    const res = await app.request(path, { method });
    assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${method} ${path} (${res.status})`);
  }
});

test("HTML routes forbid framing: /docs has a CSP with frame-ancestors 'none', and only same-origin scripts", async () => {
  const res = await createApp(deps()).request("/docs");
  assert.equal(res.status, 200);
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
});

test("CORS is off by default: no Access-Control headers, and a preflight gets no permission", async () => {
  const app = createApp(deps());
  const preflight = await app.request("/v1/runs", { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
  assert.equal(preflight.headers.get("access-control-allow-origin"), null);
  const get = await app.request("/v1/runs", { headers: { origin: ORIGIN } });
  assert.equal(get.headers.get("access-control-allow-origin"), null);
});

test("with allowed origins, a preflight is answered before auth (no key, no 401) and answers name the origin", async () => {
  const app = createApp(deps({ corsOrigins: [ORIGIN] }));
  const preflight = await app.request("/v1/runs", { method: "OPTIONS", headers: { origin: ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type, idempotency-key" } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), ORIGIN);
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /Authorization/i);
  assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
  const unauthenticated = await app.request("/v1/runs", { headers: { origin: ORIGIN } });
  assert.equal(unauthenticated.status, 401);
  assert.equal(unauthenticated.headers.get("access-control-allow-origin"), ORIGIN, "the browser app can read the 401 and say why");
  assert.match(unauthenticated.headers.get("access-control-expose-headers") ?? "", /Retry-After/);
  const other = await app.request("/v1/runs", { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });
  assert.equal(other.headers.get("access-control-allow-origin"), null, "an origin not listed gets no permission");
  assert.equal(other.headers.get("access-control-allow-credentials"), null);
});

test("serve refuses a CORS origin that is not an origin (a wildcard, a path) and a proxy that is not an address, exit 2", async () => {
  const { main } = await import("../../cli/main.ts");
  const { readConfig } = await import("../../cli/config.ts");
  const errors: string[] = [];
  const write = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    assert.equal(await main(["serve", "--cors-origin", "*"], () => {}, readConfig({})), 2);
    assert.equal(await main(["serve", "--cors-origin", "https://app.example.com/path"], () => {}, readConfig({})), 2);
    assert.equal(await main(["serve", "--trusted-proxy", "10.0.0.0/33"], () => {}, readConfig({})), 2);
    assert.equal(await main(["serve"], () => {}, readConfig({ ARIADNE_TRUSTED_PROXIES: "proxy.internal" })), 2, "the variable is checked as the flag is");
  } finally {
    console.error = write;
  }
  assert.match(errors[0]!, /--cors-origin must be an origin like https:\/\/app\.example\.com .* got "\*"/);
  assert.match(errors[2]!, /--trusted-proxy must be an IP address or CIDR range .* got "10\.0\.0\.0\/33"/);
  assert.equal(errors.length, 4);
});
