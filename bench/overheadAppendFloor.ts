import type { EventStore, RecordedEvent } from "../events/index.ts";

export interface AppendFloor {
  appends: number;
  appendsPerSecond: number;
  msPerAppend: number;
}

/**
 * Between the raw INSERT and a runtime turn: sequential store.append calls of
 * one recorded turn event's payload (validation, canonical JSON, the
 * ariadne_append_batch function with its lock and chain, the NOTIFY), each its own
 * commit: one writer, so never batched.
 */
export async function measureAppendFloor(
  store: EventStore,
  sample: RecordedEvent<"turn">,
  { maxAppends = 2000, budgetMs = 1500 } = {},
): Promise<AppendFloor> {
  const streamId = `bench-append-floor-${process.pid}-${Date.now().toString(36)}`;
  const event = { type: "turn" as const, data: sample.data, metadata: { runId: streamId, executorId: streamId } };
  let version = 0;
  for (let i = 0; i < 20; i++) version = (await store.append(streamId, version, [event])).nextExpectedVersion;

  const started = performance.now();
  let appends = 0;
  while (appends < maxAppends && performance.now() - started < budgetMs) {
    version = (await store.append(streamId, version, [event])).nextExpectedVersion;
    appends++;
  }
  const seconds = (performance.now() - started) / 1000;
  return { appends, appendsPerSecond: appends / seconds, msPerAppend: (seconds * 1000) / appends };
}
