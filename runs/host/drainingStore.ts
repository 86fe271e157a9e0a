import type { EventStore, EventType } from "../../events/index.ts";

/** Events that record the outcome of work already under way; everything else starts a new step. */
const OUTCOMES = new Set<EventType>([
  "tool_completed",
  "tool_failed",
  "effect_unknown",
  "handoff_committed",
  "handoff_consumed",
  "settled",
  "budget_settled",
  "recovered",
]);

export interface DrainingStore extends EventStore {
  /** From now on, appends that would start a new step are held back forever; outcomes still go through. */
  drain(): void;
  /** Holds back every append (the lease is gone). */
  halt(): void;
  /** Resolves once no tool intent of this process lacks its outcome and no append is in flight, or after waitMs. */
  settled(waitMs: number): Promise<{ inFlight: string[] }>;
}

/**
 * A store for the host of a run that may be interrupted. Stopping a run must
 * not abort what is running: a tool already called records its outcome, but
 * no new turn, tool call or Child starts. The runtime's appends that would
 * start one simply never return; the process then records the interruption
 * and exits, and a resume rebuilds from what was recorded.
 */
export function drainingStore(inner: EventStore): DrainingStore {
  let mode: "open" | "draining" | "halted" = "open";
  let appending = 0;
  const intents = new Set<string>();
  const parked = new Promise<never>(() => {});
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((w) => w());

  return {
    ...inner,
    async append(streamId, expectedVersion, events) {
      if (mode === "halted" || (mode === "draining" && events.some((e) => !OUTCOMES.has(e.type)))) return parked;
      appending++;
      try {
        const result = await inner.append(streamId, expectedVersion, events);
        for (const e of result.events) {
          if (e.type === "tool_called" && e.data.tool !== "delegate") intents.add(e.data.toolUseId);
          if (e.type === "tool_completed" || e.type === "tool_failed" || e.type === "effect_unknown") intents.delete(e.data.toolUseId);
        }
        return result;
      } finally {
        appending--;
        wake();
      }
    },
    withFence: (fence) => drainingStore(inner.withFence(fence)),
    drain() {
      if (mode === "open") mode = "draining";
    },
    halt() {
      mode = "halted";
    },
    async settled(waitMs) {
      const deadline = Date.now() + waitMs;
      while ((intents.size > 0 || appending > 0) && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const done = () => {
            waiters.delete(done);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(done, Math.min(100, Math.max(0, deadline - Date.now())));
          waiters.add(done);
        });
      }
      return { inFlight: [...intents] };
    },
  };
}
