import { openStore } from "../events/openStore.ts";
import { MIN_LEASE_MS, WORKER_DEFAULTS, runWorker, runtimeFactory, workerOptionProblem } from "../runs/index.ts";
import { progressPrinter } from "./progress.ts";
import { type AriadneConfig, hostSettings, storeOptionsOf } from "./config.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { parseCommand } from "./parseCommand.ts";
import { exitNow } from "./exitNow.ts";
import { installTelemetry } from "./installTelemetry.ts";
import { UsageError } from "./usage.ts";

const USAGE = `usage: ariadne worker [--concurrency N] [--lease-ms MS] [--idle-exit-ms MS]

Executes submitted runs and takes over runs whose owner's lease ran out, each
under a lease renewed by heartbeat. Several workers may serve one PostgreSQL
database. SIGTERM or Ctrl-C: tool calls in flight record their outcome, then the
worker's runs are released for another worker at once. With
OTEL_EXPORTER_OTLP_ENDPOINT set, the store's spans are exported over OTLP/HTTP
(one exporter on a store at a time; the others wait their turn).

options:
  --concurrency N    runs hosted at once, at least 1 (default ${WORKER_DEFAULTS.concurrency})
  --lease-ms MS      lease time to live, at least ${MIN_LEASE_MS} (default ARIADNE_LEASE_MS or 15000)
  --poll-ms MS       how often to look for expired leases (default ${WORKER_DEFAULTS.pollMs})
  --idle-exit-ms MS  exit after nothing to do for this long (default: run until stopped)
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

const positive = (name: string, v: unknown): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer, got "${v}"`);
  return n;
};

/** `ariadne worker`. */
export async function workerCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values } = parseCommand(
    argv,
    {
      concurrency: { type: "string" },
      "lease-ms": { type: "string" },
      "poll-ms": { type: "string" },
      "idle-exit-ms": { type: "string" },
    },
    USAGE,
  );
  if (values.help) return (out(USAGE), 0);
  const ttlMs = positive("lease-ms", values["lease-ms"]) ?? config.leaseMs;
  const concurrency = positive("concurrency", values.concurrency);
  const pollMs = positive("poll-ms", values["poll-ms"]);
  const idleExitMs = positive("idle-exit-ms", values["idle-exit-ms"]);
  // Bad usage, refused before the store is opened: one line, exit 2.
  const leaseName = values["lease-ms"] === undefined ? "ARIADNE_LEASE_MS" : "--lease-ms";
  const problem = workerOptionProblem({ ttlMs, concurrency }, { ttlMs: leaseName, concurrency: "--concurrency" });
  if (problem) return (console.error(`ariadne: ${problem}`), 2);
  // A worker started while the database is down waits for it, however long (saying so), rather than exit.
  const storeOptions = storeOptionsOf(config, values["data-dir"]);
  const { store, database, close } = await openStore({ ...storeOptions, wait: { ...storeOptions.wait, atOpenMs: Infinity } });
  // The log's spans, when OTEL_EXPORTER_OTLP_ENDPOINT is set (cli/installTelemetry.ts).
  const telemetry = await installTelemetry(config.telemetry, store, out);
  const stop = new AbortController();
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) exitNow(130);
    out("worker: stopping; runs in hand are released once their tool calls in flight record (signal again to exit at once)");
    stop.abort();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  try {
    out(`worker: serving ${database.location}`);
    const { owner, results } = await runWorker({
      database,
      store,
      buildRuntime: runtimeFactory(hostSettings(config), { progress: () => progressPrinter(out) }),
      ttlMs,
      pollMs,
      concurrency,
      idleExitMs,
      signal: stop.signal,
      log: out,
      sealKey: sealSigningKey(config.sealKeys),
    });
    out(`worker ${owner}: stopped after ${results.length} run(s)`);
    // Model calls of released runs may still be in flight; their answers are not wanted.
    if (stop.signal.aborted) setTimeout(() => process.exit(0), 2_000).unref();
    return 0;
  } finally {
    // Once stopping, a second signal exits 130 until the process is gone, also while it closes and waits to exit.
    if (signals === 0) {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    }
    await telemetry?.stop();
    await close();
  }
}
