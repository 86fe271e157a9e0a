import { setMaxListeners } from "node:events";
import type { Env } from "../models/index.ts";
import type { EventStore } from "../events/index.ts";
import { createApp } from "./app.ts";
import type { AppDeps } from "./deps.ts";
import { startEventHub } from "./live/eventHub.ts";
import { createInProcessRuns } from "./runs/inProcessRuns.ts";
import { createStoreReads } from "./runs/storeReads.ts";
import { type RunningServer, startServer } from "./startServer.ts";

export interface ApiServerOptions extends Pick<AppDeps, "auth" | "rateLimit" | "heartbeatMs" | "keyCacheMs" | "maxBodyBytes" | "log"> {
  store: EventStore;
  port: number;
  host: string;
  env?: Env;
  /** false: this process executes no runs (--no-workers). */
  workers?: boolean;
  scriptedLatencyMs?: number;
}

export interface ApiServer {
  server: RunningServer;
  app: ReturnType<typeof createApp>;
  /** Graceful: stop accepting, end live streams, let runs in this process finish, stop the hub. */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Wires the app to the store and serves it: the one start-up path for `ariadne serve`, tests and benches. */
export async function openApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const hub = await startEventHub(options.store);
  // INTERIM: at merge the RunsPort comes from runs/ (submitRun, workers with leases) instead.
  const runs = createInProcessRuns({ store: options.store, env: options.env, workers: options.workers, scriptedLatencyMs: options.scriptedLatencyMs });
  const shutdown = new AbortController();
  // Every live stream listens for shutdown; hundreds at once are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const app = createApp({ ...options, database: options.store.database, runs, reads: createStoreReads(options.store), hub, shutdown: shutdown.signal });
  const server = await startServer(app.fetch, { port: options.port, host: options.host });
  return {
    server,
    app,
    async close({ graceMs = 10_000 } = {}) {
      shutdown.abort();
      await server.close(graceMs);
      await Promise.race([runs.close(), new Promise((r) => setTimeout(r, graceMs))]);
      await hub.close();
    },
  };
}
