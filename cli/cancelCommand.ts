import { openStore } from "../events/openStore.ts";
import { type CancelDeps, type CancelRun, cancelRun } from "../runs/index.ts";
import type { Database } from "../db/openDatabase.ts";
import type { EventStore } from "../events/index.ts";
import type { Invocation } from "./command.ts";
import { sealSigningKey } from "./sealKeys.ts";

/** The one cancel use case (runs/cancelRun.ts), also behind the HTTP API. */
const cancelUseCase: (deps: CancelDeps) => CancelRun = cancelRun;

/** `ariadne cancel RUN [--executor ID]`. */
export async function cancelCommand({ flags, positionals, out, config, storeOptions }: Invocation): Promise<number> {
  const [runId] = positionals as [string];
  const { database, store, close } = await openStore(storeOptions);
  try {
    const { cancelled, requested } = await cancelUseCase({ database, store, sealKey: sealSigningKey(config.sealKeys) })({
      runId,
      executorId: flags.string("executor"),
      reason: flags.string("reason")!,
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
