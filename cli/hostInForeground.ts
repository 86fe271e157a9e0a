import type { HostedRun, HostResult } from "../runs/index.ts";
import { exitNow } from "./exitNow.ts";

/** How long tool calls in flight get to record their outcome after a first Ctrl-C. */
export const INTERRUPT_GRACE_MS = 10_000;

/**
 * Waits for a run hosted by this command (run, resume). A first Ctrl-C (or
 * SIGTERM) stops starting new steps, lets tool calls in flight record their
 * outcome for a bounded time, marks the run interrupted and says how to resume
 * or cancel it; a second Ctrl-C exits at once.
 */
export async function hostInForeground(hosted: HostedRun, log: (line: string) => void): Promise<HostResult> {
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) {
      log("second interrupt: exiting now; the run's lease runs out and it can be resumed");
      exitNow(130);
    }
    log(`interrupting run ${hosted.lease.runId}: no new steps; waiting up to ${INTERRUPT_GRACE_MS / 1000} s for tool calls in flight (Ctrl-C again to exit at once)`);
    void hosted.stop("interrupt", INTERRUPT_GRACE_MS);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const result = await hosted.done;
    if (result.kind === "interrupted") {
      const id = hosted.lease.runId;
      log(`run ${id} interrupted${result.inFlight.length ? `; outcome not recorded for ${result.inFlight.join(", ")}` : ""}`);
      log(`  resume it:  ariadne resume ${id}`);
      log(`  cancel it:  ariadne cancel ${id}`);
      // A model call still in flight would keep the process alive until it answers; nothing waits for it.
      setTimeout(() => process.exit(130), 2_000).unref();
    }
    return result;
  } finally {
    // Once interrupted, a second signal exits 130 until the process is gone (as it renders, closes, waits to exit).
    if (signals === 0) {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  }
}
