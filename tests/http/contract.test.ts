import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { createApp } from "../../http/app.ts";
import type { AppDeps } from "../../http/deps.ts";
import { type RunningServer, startServer } from "../../http/startServer.ts";

// Nothing here reaches a database but the unreachable one below.
const SECRET_URL = "postgres://secretuser@127.0.0.1:1/secretdb";
const unreachable = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: SECRET_URL, connectionTimeoutMillis: 2_000 }) }) });
const deps = {
  auth: "none",
  database: { db: unreachable, engine: "postgres", location: SECRET_URL },
  runs: {},
  reads: {},
  hub: {},
  log: () => {},
} as unknown as AppDeps;
const app = createApp(deps);

let server: RunningServer;
let port: number;
before(async () => {
  server = await startServer(app.fetch, { port: 0, host: "127.0.0.1" });
  port = server.port;
});
after(async () => {
  await server.close(100);
  await unreachable.destroy();
});

async function problem(res: Response, status: number): Promise<Record<string, any>> {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  const body = (await res.json()) as Record<string, any>;
  assert.equal(body.status, status);
  assert.equal(body.requestId, res.headers.get("x-request-id"), "the body names the request id");
  return body;
}

test("/readyz says not ready, and why, naming no host, user, database or path", async () => {
  const res = await app.request("/readyz");
  const body = await problem(res, 503);
  assert.match(body.detail, /database/);
  for (const secret of ["secretuser", "secretdb", "127.0.0.1", ":1", "postgres://"]) assert.ok(!JSON.stringify(body).includes(secret), `${secret} in ${body.detail}`);
});

test("a known path with another method is 405 with Allow, as a problem", async () => {
  const res = await app.request("/v1/runs/abc/cancel", { method: "GET" });
  const body = await problem(res, 405);
  assert.equal(res.headers.get("allow"), "POST");
  assert.match(body.detail, /GET/);
  const runs = await app.request("/v1/runs", { method: "DELETE" });
  await problem(runs, 405);
  assert.deepEqual(runs.headers.get("allow")?.split(", ").sort(), ["GET", "HEAD", "POST"]);
  await problem(await app.request("/v1/nowhere"), 404);
});

test("headers over the limit are a 431 problem", async () => {
  const { status, type, body } = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path: "/healthz", headers: { "x-big": "x".repeat(64 * 1024) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, type: res.headers["content-type"], body: text }));
    });
    req.on("error", reject);
    req.end();
  });
  assert.equal(status, 431);
  assert.equal(type, "application/problem+json");
  const parsed = JSON.parse(body);
  assert.equal(parsed.status, 431);
  assert.equal(typeof parsed.detail, "string");
});

test("/readyz answers while the database accepts connections but never answers (a query would wait out the outage)", async () => {
  // A port that takes the connection and says nothing: the driver would wait for ever.
  const { createServer } = await import("node:net");
  const sockets = new Set<import("node:net").Socket>();
  const mute = createServer((s) => void sockets.add(s));
  await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
  const mutePort = (mute.address() as import("node:net").AddressInfo).port;
  const silent = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: `postgres://secretuser@127.0.0.1:${mutePort}/secretdb` }) }) });
  try {
    const asked = Promise.resolve(createApp({ ...deps, database: { db: silent, engine: "postgres", location: "hidden" } } as unknown as AppDeps).request("/readyz"));
    // Far above the probe's own bound (READY_WAIT_MS), far below a probe's patience with a database's wait.
    const res = await Promise.race([asked, new Promise<null>((resolve) => setTimeout(resolve, 20_000, null).unref())]);
    assert.ok(res, "/readyz did not answer while the database was silent");
    const body = await problem(res, 503);
    assert.match(body.detail, /database is not reachable/);
    assert.equal(res.headers.get("retry-after"), "5");
  } finally {
    for (const s of sockets) s.destroy();
    mute.close();
    await silent.destroy().catch(() => {});
  }
});
