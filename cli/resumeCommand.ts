import { openStore } from "../events/openStore.ts";
import { resumeRun, runtimeFactory } from "../runs/index.ts";
import { progressPrinter } from "./progress.ts";
import { hostInForeground } from "./hostInForeground.ts";
import type { Invocation } from "./command.ts";
import { hostSettings } from "./config.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { renderRunResult } from "./renderRunResult.ts";
import { lostDatabase } from "./lostDatabase.ts";
import { installTelemetry } from "./installTelemetry.ts";
import { runVersionNote } from "../actors/index.ts";
import { errorLine } from "./errorLine.ts";

/** `ariadne resume RUN`. */
export async function resumeCommand({ flags, positionals, out, config, storeOptions }: Invocation): Promise<number> {
  const [runId] = positionals as [string];
  const json = flags.bool("json");
  const log = json ? errorLine : out;
  const ttlMs = config.leaseMs;
  const waitMs = flags.number("wait-ms") ?? ttlMs;
  const sealKey = sealSigningKey(config.sealKeys);
  const { store, database, close } = await openStore(storeOptions);
  const telemetry = await installTelemetry(config.telemetry, store, errorLine);
  try {
    // Resumed under other request code: the history is the log's texts, new requests are this version's.
    const note = runVersionNote(await store.readRun(runId).catch(() => []));
    if (note) log(`request code: ${note}; new requests are built by this version`);
    const hosted = await resumeRun({ database, store, buildRuntime: runtimeFactory(hostSettings(config), { progress: () => progressPrinter(log) }), ttlMs, waitMs, log, sealKey }, runId);
    const result = await hostInForeground(hosted, log);
    return await renderRunResult(result, { store, location: database.location, lease: hosted.lease, json, out });
  } catch (e) {
    // The database went away for longer than this command waits: say so, and how to finish the run.
    throw lostDatabase(e, runId);
  } finally {
    // The run's last spans are exported before the store closes.
    await telemetry?.stop();
    await close();
  }
}
