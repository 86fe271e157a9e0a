import { createRequire } from "node:module";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";

/** The slice of autocannon's API the HTTP bench uses (the package ships no types). */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  non2xx: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
}) => Promise<LoadResult>;

export const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

/**
 * The baseline: a bare Hono app on @hono/node-server that answers from memory
 * with exactly the bytes the API sends (the run's JSON, the SSE frames).
 */
export async function startBareServer(runJson: unknown, sseFrames: { id: string; event: string; data: string }[]) {
  const app = new Hono();
  app.get("/run", (c) => c.json(runJson as object));
  app.get("/events", (c) =>
    streamSSE(c, async (stream) => {
      for (const f of sseFrames) await stream.writeSSE(f);
    }),
  );
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
      resolve({ url: `http://127.0.0.1:${info.port}`, close: () => new Promise((done) => server.close(() => done())) }),
    );
  });
}
