import { openStore } from "../events/openStore.ts";
import { runWorker, runtimeFactory } from "../runs/index.ts";
import { progressPrinter } from "./progress.ts";
import type { Invocation } from "./command.ts";
import { hostSettings } from "./config.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { exitNow } from "./exitNow.ts";
import { installTelemetry } from "./installTelemetry.ts";

/** `ariadne worker`. */
export async function workerCommand({ flags, out, config, storeOptions }: Invocation): Promise<number> {
  // Bounds are the table's (cli/commands/runCommands.ts, cli/bounds.ts), checked before this runs; ARIADNE_LEASE_MS's by cli/config.ts.
  const ttlMs = flags.number("lease-ms") ?? config.leaseMs;
  const concurrency = flags.number("concurrency");
  const pollMs = flags.number("poll-ms");
  const idleExitMs = flags.number("idle-exit-ms");
  // A worker started while the database is down waits for it, however long (saying so), rather than exit.
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
