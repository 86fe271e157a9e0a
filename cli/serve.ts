import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { installTelemetry } from "./installTelemetry.ts";
import { openApiServer } from "../http/openApiServer.ts";
import type { Limits } from "../http/middleware/limits.ts";
import { type AriadneConfig, hostSettings, modelConfigured } from "./config.ts";

export interface ServeOptions extends OpenOptions {
  port: number;
  host: string;
  workers: boolean;
  /** Runs the server's worker hosts at once (as `ariadne worker --concurrency`). */
  concurrency?: number;
  auth: boolean;
  /** Browser origins allowed to call the API (CORS); none: off. */
  corsOrigins?: string[];
  /** Proxies whose X-Forwarded-For names the client. */
  trustedProxies?: string[];
  /** Per-key and per-tenant caps (--streams-per-key …, cli/serveCaps.ts); the rest default. */
  limits?: Partial<Limits>;
  config: AriadneConfig;
  out: (line: string) => void;
  /** Resolves when the server should stop; default SIGTERM or SIGINT. */
  stopSignal?: Promise<string>;
}

/**
 * `ariadne serve`: the HTTP API on the configured store, and a worker that
 * executes submitted runs under leases (runs/host/worker.ts, runtimes built as
 * `ariadne worker` builds them) unless --no-workers. Until SIGTERM/SIGINT, then
 * a graceful stop: no new connections, live streams ended, the worker's runs
 * released through their leases for another worker (or this server, restarted)
 * once their tool calls in flight record, store closed, exit 0.
 */
export async function serve(options: ServeOptions): Promise<number> {
  const { config } = options;
  const log = (fields: Record<string, unknown>) => options.out(JSON.stringify({ time: new Date().toISOString(), level: "info", ...fields }));
  // Started while the database is down: waits for it, however long, saying so in the log, rather than exit.
  const { store, database, close } = await openStore({ ...options, wait: { ...options.wait, atOpenMs: Infinity, log: (line) => log({ level: "warn", msg: line }) } });
  // The log's spans, for runs hosted here or by any worker on this store (cli/installTelemetry.ts).
  const telemetry = await installTelemetry(config.telemetry, store, (line) => log({ level: "warn", msg: line }));
  try {
    if (!options.auth) {
      const warning = "AUTH IS OFF (--no-auth): every caller is an admin of tenant \"default\"; never expose this server beyond loopback";
      console.error(`\n*** WARNING: ${warning} ***\n`);
      log({ level: "warn", msg: warning });
    }
    const api = await openApiServer({
      store,
      port: options.port,
      host: options.host,
      settings: hostSettings(config),
      leaseMs: config.leaseMs,
      workers: options.workers,
      auth: options.auth ? "keys" : "none",
      corsOrigins: options.corsOrigins,
      trustedProxies: options.trustedProxies,
      // Only the caps given: an absent one keeps the app's default.
      limits: Object.fromEntries(Object.entries(options.limits ?? {}).filter(([, v]) => v !== undefined)),
      log: options.out,
      workerLog: (line) => log({ msg: line }),
      worker: { concurrency: options.concurrency },
      sealKey: sealSigningKey(config.sealKeys),
    });
    log({
      msg: "listening",
      url: `http://${options.host}:${api.server.port}`,
      store: database.location,
      workers: options.workers ? "hosted here" : "none here (--no-workers): `ariadne worker` processes execute submitted runs",
      auth: options.auth ? "api keys" : "OFF",
      model: modelConfigured(config) ? "anthropic" : "scripted offline scenario (ANTHROPIC_API_KEY is not set)",
    });
    const signal = await (options.stopSignal ?? waitForSignal());
    log({ msg: "shutting down", signal });
    await api.close();
    log({ msg: "stopped" });
    // Model calls of released runs may still be in flight; their answers are not wanted.
    if (!options.stopSignal) setTimeout(() => process.exit(0), 2_000).unref();
    return 0;
  } finally {
    await telemetry?.stop();
    await close();
  }
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    for (const s of ["SIGTERM", "SIGINT"] as const) process.once(s, () => resolve(s));
  });
}
