import { openStore } from "../events/openStore.ts";
import { resumeRun, runtimeFactory } from "../runs/index.ts";
import { progressPrinter } from "./progress.ts";
import { hostInForeground } from "./hostInForeground.ts";
import { type AriadneConfig, hostSettings, storeOptionsOf } from "./config.ts";
import { parseCommand } from "./parseCommand.ts";
import { UsageError } from "./usage.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { renderRunResult } from "./renderRunResult.ts";
import { lostDatabase } from "./lostDatabase.ts";
import { installTelemetry } from "./installTelemetry.ts";

const USAGE = `usage: ariadne resume RUN [--json] [--wait-ms MS]

Finishes a crashed or interrupted run in this process: its streams are verified,
every live executor is rebuilt from the log (no model or tool call is repeated to
do so) and the run goes on from there. A tool call whose intent was recorded but
whose outcome was not is never run again blindly. A run held by a live owner is
waited for until its lease runs out (--wait-ms, default the lease time).

options:
  --json             print one JSON object with the outcome
  --wait-ms MS       how long to wait for another owner's lease
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** `ariadne resume RUN`. */
export async function resumeCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(argv, { json: { type: "boolean", default: false }, "wait-ms": { type: "string" } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new UsageError(`resume takes exactly one run id (ariadne resume --help for usage)`);
  const log = values.json ? (line: string) => console.error(line) : out;
  const ttlMs = config.leaseMs;
  const waitMs = values["wait-ms"] === undefined ? ttlMs : Number(values["wait-ms"]);
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new UsageError(`--wait-ms must be a non-negative number, got "${values["wait-ms"]}"`);
  const sealKey = sealSigningKey(config.sealKeys);
  const { store, database, close } = await openStore(storeOptionsOf(config, values["data-dir"]));
  const telemetry = await installTelemetry(config.telemetry, store, (line) => console.error(line));
  try {
    const hosted = await resumeRun({ database, store, buildRuntime: runtimeFactory(hostSettings(config), { progress: () => progressPrinter(log) }), ttlMs, waitMs, log, sealKey }, runId);
    const result = await hostInForeground(hosted, log);
    return await renderRunResult(result, { store, location: database.location, lease: hosted.lease, json: values.json, out });
  } catch (e) {
    throw lostDatabase(e, runId);
  } finally {
    // The run's last spans are exported before the store closes.
    await telemetry?.stop();
    await close();
  }
}
