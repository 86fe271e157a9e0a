import { test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { AppEnv } from "../../http/deps.ts";
import { requestLog } from "../../http/middleware/requestLog.ts";

/** An app with only the request log in front of two routes: one answered by a known caller, one failing. */
function logged() {
  const lines: string[] = [];
  const app = new Hono<AppEnv>();
  app.use("*", requestLog((line) => lines.push(line)));
  app.post("/who", (c) => {
    c.set("principal", { keyId: "key_1", tenant: "acme", role: "client" });
    return c.json({ ok: true }, 201);
  });
  app.get("/broken", (c) => c.text("no", 503));
  return { app, lines };
}

test("each request is one JSON line: method, path, status, duration, key id and tenant, and the X-Request-Id it answered with", async () => {
  const { app, lines } = logged();
  const res = await app.request("/who?x=1", { method: "POST", headers: { authorization: "Bearer ariadne_secret", "content-type": "application/json" }, body: '{"question":"private"}' });
  assert.equal(res.status, 201);
  assert.equal(lines.length, 1);
  const entry = JSON.parse(lines[0]) as Record<string, unknown>;
  assert.deepEqual(
    { ...entry, time: undefined, ms: undefined },
    { time: undefined, level: "info", msg: "request", requestId: res.headers.get("x-request-id"), method: "POST", path: "/who", status: 201, ms: undefined, keyId: "key_1", tenant: "acme" },
  );
  assert.equal(typeof entry.ms, "number");
  assert.match(res.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
});

test("the line never carries headers, bodies or keys; a 5xx is logged as an error, an anonymous caller as null", async () => {
  const { app, lines } = logged();
  await app.request("/who", { method: "POST", headers: { authorization: "Bearer ariadne_secret" }, body: '{"question":"private"}' });
  const res = await app.request("/broken");
  assert.equal(res.status, 503);
  assert.doesNotMatch(lines.join("\n"), /ariadne_secret|private|authorization/i);
  const broken = JSON.parse(lines[1]) as Record<string, unknown>;
  assert.deepEqual([broken.level, broken.status, broken.keyId, broken.tenant], ["error", 503, null, null]);
  assert.notEqual(JSON.parse(lines[0]).requestId, broken.requestId, "every request gets its own id");
});
