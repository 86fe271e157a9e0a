import { openStore } from "../events/openStore.ts";
import { type CancelDeps, type CancelRun, cancelRun } from "../runs/index.ts";
import type { Database } from "../db/openDatabase.ts";
import type { EventStore } from "../events/index.ts";
import { type AriadneConfig, storeOptionsOf } from "./config.ts";
import { sealSigningKey } from "./sealKeys.ts";
import { parseCommand } from "./parseCommand.ts";
import { UsageError } from "./usage.ts";

const USAGE = `usage: ariadne cancel RUN [--executor ID] [--reason TEXT]

Cancels a run, or one executor of it and the executors it delegated to.
Cancelled executors stop at their next step; their work stays in the log.

options:
  --executor ID      cancel this executor (and its descendants) only
  --reason TEXT      recorded with the cancellation (default "cancelled by the operator")
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** The one cancel use case (runs/cancelRun.ts), also behind the HTTP API. */
const cancelUseCase: (deps: CancelDeps) => CancelRun = cancelRun;

/** `ariadne cancel RUN [--executor ID]`. */
export async function cancelCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(argv, { executor: { type: "string" }, reason: { type: "string" } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new UsageError(`cancel takes exactly one run id (ariadne cancel --help for usage)`);
  const { database, store, close } = await openStore(storeOptionsOf(config, values["data-dir"]));
  try {
    const { cancelled, requested } = await cancelUseCase({ database, store, sealKey: sealSigningKey(config.sealKeys) })({
      runId,
      executorId: values.executor,
      reason: values.reason ?? "cancelled by the operator",
      by: "operator",
    });
    out(
      cancelled.length === 0
        ? `run ${runId}: nothing live to cancel`
        : requested
          ? `cancel requested of run ${runId} (${cancelled.join(", ")}): its host stops it and its live Children now`
          : `cancelled ${cancelled.length} executor(s) of run ${runId}: ${cancelled.join(", ")}`,
    );
    return 0;
  } finally {
    await close();
  }
}
