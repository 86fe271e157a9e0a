/** A stretch the run had no host: from its last event before a takeover (`since`) to the new host's `run_resumed` (`until`). */
export interface Downtime {
  since: number;
  until: number;
}

/** The `run_resumed` facts of a run's stream as stretches without a host, in epoch ms. Pure. */
export function downtimesOf(events: readonly { type: string; data: unknown; recordedAt: Date }[]): Downtime[] {
  return events
    .filter((e) => e.type === "run_resumed")
    .map((e) => ({ since: Date.parse((e.data as { downSince: string }).downSince), until: e.recordedAt.getTime() }))
    .filter((d) => Number.isFinite(d.since) && d.until > d.since);
}

/**
 * Time without a host between `from` and `now`: the part of each stretch that
 * lies in that window. Wall clocks count `now - from` less this: the time the
 * run was hosted, the same whichever process asks, since it is read from the log. Pure.
 */
export function downtimeBetween(downtimes: readonly Downtime[], from: number, now: number): number {
  let ms = 0;
  for (const d of downtimes) ms += Math.max(0, Math.min(d.until, now) - Math.max(d.since, from));
  return ms;
}
