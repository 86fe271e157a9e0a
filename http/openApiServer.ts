import type { KeyObject } from "node:crypto";
import { setMaxListeners } from "node:events";
import type { EventStore } from "../events/index.ts";
import { type BuildRuntime, DEFAULT_LEASE_MS, type HostSettings, type WorkerOptions, runWorker, runtimeFactory } from "../runs/index.ts";
import { createApp } from "./app.ts";
import type { AppDeps } from "./deps.ts";
import { startEventHub } from "./live/eventHub.ts";
import { auditReads } from "./runs/auditReads.ts";
import { createLeasedRuns } from "./runs/leasedRuns.ts";
import { type RunningServer, startServer } from "./startServer.ts";

export interface ApiServerOptions extends Pick<AppDeps, "auth" | "corsOrigins" | "trustedProxies" | "rateLimit" | "heartbeatMs" | "keyCacheMs" | "maxBodyBytes" | "log" | "idempotency" | "limits"> {
  store: EventStore;
  port: number;
  host: string;
  /** The configured model and scripted pacing (cli/config.ts); default none: runs are offline scenarios only. */
  settings?: HostSettings;
  /** Lease time to live of the worker's runs (ARIADNE_LEASE_MS). */
  leaseMs?: number;
  /** false (--no-workers): this process executes no runs; `ariadne worker` processes take them. */
  workers?: boolean;
  /** How a hosted run's runtime is built; default runs/host/runtimeFactory (as `ariadne worker` builds it). */
  buildRuntime?: BuildRuntime;
  /** The worker's lease, polling and concurrency; defaults as `ariadne worker`. */
  worker?: Pick<WorkerOptions, "owner" | "ttlMs" | "pollMs" | "concurrency" | "graceMs">;
  /** Delay per scripted model reply (ARIADNE_SCRIPTED_LATENCY_MS), so tests can catch a run in flight. */
  scriptedLatencyMs?: number;
  /** Worker lines (took, finished, released); default nowhere. */
  workerLog?: (line: string) => void;
  /** The key seals are signed with, by the worker and by a cancel that ends a run. */
  sealKey?: KeyObject;
}

export interface ApiServer {
  server: RunningServer;
  app: ReturnType<typeof createApp>;
  /**
   * Graceful: stop accepting, end live streams, then the worker stops: tool
   * calls in flight record their outcome and its runs are released through
   * their leases for another worker (or this server, restarted) at once.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Wires the app to the store, starts the worker unless told not to, and serves: the one start-up path for `ariadne serve`, tests and benches. */
export async function openApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const settings: HostSettings = { ...options.settings, ...(options.scriptedLatencyMs !== undefined && { scriptedLatencyMs: options.scriptedLatencyMs }) };
  const log = options.log;
  const hub = await startEventHub(options.store, log ? { log: (fields) => log(JSON.stringify({ time: new Date().toISOString(), ...fields })) } : {});
  const runs = createLeasedRuns({ store: options.store, env: settings.model, sealKey: options.sealKey });
  const shutdown = new AbortController();
  // Every live stream listens for shutdown; hundreds at once are expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const app = createApp({ ...options, database: options.store.database, runs, reads: auditReads(options.store), hub, shutdown: shutdown.signal });
  const stopWorker = new AbortController();
  const worker =
    options.workers === false
      ? null
      : runWorker({
          database: options.store.database,
          store: options.store,
          buildRuntime: options.buildRuntime ?? runtimeFactory(settings),
          ttlMs: options.leaseMs ?? DEFAULT_LEASE_MS,
          ...options.worker,
          sealKey: options.sealKey,
          signal: stopWorker.signal,
          log: options.workerLog,
        });
  let server: RunningServer;
  try {
    server = await startServer(app.fetch, { port: options.port, host: options.host });
  } catch (e) {
    stopWorker.abort();
    await worker?.catch(() => {});
    await hub.close();
    throw e;
  }
  return {
    server,
    app,
    async close({ graceMs = 10_000 } = {}) {
      shutdown.abort();
      await server.close(graceMs);
      stopWorker.abort();
      await worker;
      await hub.close();
    },
  };
}
