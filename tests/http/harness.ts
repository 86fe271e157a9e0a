import { createApiKey, revokeApiKey } from "../../db/apiKeys.ts";
import type { Role } from "../../http/auth/principal.ts";
import { createApp } from "../../http/app.ts";
import type { AppDeps } from "../../http/deps.ts";
import { type EventHub, startEventHub } from "../../http/live/eventHub.ts";
import { auditReads } from "../../http/runs/auditReads.ts";
import { createLeasedRuns } from "../../http/runs/leasedRuns.ts";
import type { RunsPort } from "../../http/runs/runsPort.ts";
import type { EventStore } from "../../events/index.ts";
import { runWorker, runtimeFactory } from "../../runs/index.ts";
import type { ToolRegistry } from "../../tools/index.ts";
import { uniqueId } from "../support/forEachEngine.ts";
import { openApiContract } from "../support/openApiContract.ts";

export interface Harness {
  app: ReturnType<typeof createApp>;
  runs: RunsPort;
  hub: EventHub;
  logs: string[];
  /** A fresh tenant name no other test uses. */
  tenant(prefix?: string): string;
  key(role: Role, tenant: string): Promise<string>;
  revokedKey(role: Role, tenant: string): Promise<string>;
  close(): Promise<void>;
}

export interface HarnessOptions extends Partial<AppDeps> {
  /** Delay per scripted model reply, recorded with each run this harness submits (whichever worker hosts it). */
  scriptedLatencyMs?: number;
  /** false: no worker in this harness (as `ariadne serve --no-workers`); another must take its runs. */
  workers?: boolean;
  /** The worker's tools (same specs as runTools), to watch their calls. */
  tools?: () => ToolRegistry;
}

/** The app over a real store with the runs port over runs/, a worker (as `ariadne serve` hosts one) and the live event hub. */
export async function openHarness(store: EventStore, options: HarnessOptions = {}): Promise<Harness> {
  const { scriptedLatencyMs, workers, tools, ...deps } = options;
  const hub = await startEventHub(store, { pollMs: 100 });
  const runs = createLeasedRuns({ store, tags: scriptedLatencyMs === undefined ? {} : { scriptedLatencyMs: String(scriptedLatencyMs) } });
  const logs: string[] = [];
  // Ends any live stream a failing test left open, so the process can exit.
  const shutdown = new AbortController();
  const stopWorker = new AbortController();
  const worker =
    workers === false
      ? null
      : runWorker({
          database: store.database,
          store,
          buildRuntime: runtimeFactory({}, { tools }),
          ttlMs: 10_000,
          pollMs: 100,
          concurrency: 8,
          graceMs: 2_000,
          signal: stopWorker.signal,
        });
  const app = createApp({
    shutdown: shutdown.signal,
    database: store.database,
    runs,
    reads: auditReads(store),
    hub,
    keyCacheMs: 0,
    rateLimit: { perSecond: 10_000, burst: 10_000 },
    // Suites try many bad keys on purpose, from one (unknown) address, with no key cache.
    limits: { failedAuth: { perSecond: 10_000, burst: 10_000 } },
    heartbeatMs: 200,
    log: (line) => logs.push(line),
    ...deps,
  });
  checkResponses(app);
  return {
    app,
    runs,
    hub,
    logs,
    tenant: (prefix = "tenant") => uniqueId(prefix),
    key: async (role, tenant) => (await createApiKey(store.database, { role, tenant })).token,
    async revokedKey(role, tenant) {
      const { keyId, token } = await createApiKey(store.database, { role, tenant });
      await revokeApiKey(store.database, keyId);
      return token;
    },
    async close() {
      shutdown.abort();
      stopWorker.abort();
      await worker;
      await hub.close();
    },
  };
}

/**
 * Every response a suite gets through the harness is checked against the API's
 * own OpenAPI document (tests/support/openApiContract.ts, ajv): an undeclared
 * status, media type or a body that does not match the schema fails the request
 * that got it, naming the operation and what is wrong.
 */
function checkResponses(app: ReturnType<typeof createApp>): void {
  let check: ReturnType<typeof openApiContract> | undefined;
  const request = app.request.bind(app);
  app.request = (async (input: RequestInfo | URL, init?: RequestInit, ...rest: unknown[]) => {
    const response = await (request as (...a: unknown[]) => Promise<Response>)(input, init, ...rest);
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url, "http://localhost");
    if (!url.pathname.startsWith("/v1/") && url.pathname !== "/readyz" && url.pathname !== "/healthz") return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    if (method === "HEAD") return response;
    check ??= openApiContract(app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "Ariadne API", version: "1.0.0" } }) as never);
    const contentType = response.headers.get("content-type") ?? "";
    const body = contentType.includes("json") ? await response.clone().json() : undefined;
    const wrong = check(method, url.pathname, { status: response.status, contentType, body });
    if (wrong) throw new Error(`contract: ${wrong}`);
    return response;
  }) as typeof app.request;
}

export const bearer = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, ...extra });

export const postJson = (key: string, body: unknown, extra: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: bearer(key, { "content-type": "application/json", ...extra }),
  body: JSON.stringify(body),
});

/** Polls a run until it stops (bounded: a scripted run takes a few seconds at most). */
export async function waitForFinal(app: Harness["app"], key: string, runId: string, timeoutMs = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = (await (await app.request(`/v1/runs/${runId}`, { headers: bearer(key) })).json()) as Record<string, any>;
    if (["settled", "failed", "cancelled"].includes(run.state)) return run;
    if (Date.now() > until) throw new Error(`run ${runId} still ${run.state} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A client key of a fresh tenant and one offline run it created, waited for until final. */
export async function settledOfflineRun(h: Harness): Promise<{ client: string; runId: string }> {
  const client = await h.key("client", h.tenant());
  const created = (await (await h.app.request("/v1/runs", postJson(client, { offline: true }))).json()) as { id: string };
  return { client, runId: (await waitForFinal(h.app, client, created.id)).id };
}

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Parses an SSE body frame by frame as it arrives. */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: SseFrame = {};
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) frame.comment = line.slice(1).trim();
          else {
            const i = line.indexOf(":");
            const field = line.slice(0, i);
            const v = line.slice(i + 1).replace(/^ /, "");
            if (field === "data") frame.data = frame.data === undefined ? v : `${frame.data}\n${v}`;
            else if (field === "id" || field === "event") frame[field] = v;
          }
        }
        yield frame;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
