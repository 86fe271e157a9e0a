import { type EventType, eventTypes } from "../../events/catalogue.ts";

/** The store's commit boundaries, each named per event type (core/crashPoint.ts). */
export const COMMIT_FAMILIES = ["before_commit", "during_commit", "after_commit"] as const;

/** Boundaries that are not an append's: an effect before its outcome, inside a takeover, a ledger reservation. */
export const OTHER_POINTS = ["after_effect:record_effect", "after_effect:read_counter", "during:lease_takeover", "during:budget_reservation"] as const;

/** Written only by a host recovering a crashed run: reachable after a crash, so never a chain's first point. */
export const RECOVERY_TYPES: readonly EventType[] = ["recovered", "effect_unknown"];

/** In the catalogue, never written by the fault scenario's hosts, and why. */
export const NOT_COVERED: Partial<Record<EventType, string>> = {
  run_submitted: "written by the submitter (`ariadne submit`, the test) before any host exists; a crash there leaves no run or a queued one",
  run_interrupted: "written on an operator's Ctrl-C or a host error that a restart would meet again (no model, a changed profile): neither is a crash",
  failed: "written for an executor's runtime error (a bug, a stuck state); the scenario has none to provoke",
};

/** The family of a point (`before_commit`, `after_effect`, `during`, ...) and its event type when it has one. */
export function familyOf(point: string): { family: string; type: string | null } {
  const [family, rest] = point.split(":");
  return { family, type: (COMMIT_FAMILIES as readonly string[]).includes(family) ? rest : null };
}

/**
 * Every point to arm for a scenario variant, from the counts of event types a
 * clean run of it wrote (types outside the catalogue are refused): each commit
 * family x type x pass 1..min(maxNth, count), the recovery types at passes 1-2,
 * and the other points at passes 1-2 (a takeover at 1: once per process).
 */
export function pointsFor(counts: ReadonlyMap<string, number>, maxNth: number): string[] {
  const points: string[] = [];
  for (const type of counts.keys()) if (!(eventTypes as string[]).includes(type)) throw new Error(`${type} is not in events/catalogue.ts`);
  for (const type of eventTypes) {
    if (NOT_COVERED[type]) continue;
    const passes = RECOVERY_TYPES.includes(type) ? Math.min(2, maxNth) : Math.min(maxNth, counts.get(type) ?? 0);
    for (const family of COMMIT_FAMILIES) for (let nth = 1; nth <= passes; nth++) points.push(`${family}:${type}:${nth}`);
  }
  for (const point of OTHER_POINTS) for (let nth = 1; nth <= (point === "during:lease_takeover" ? 1 : Math.min(2, maxNth)); nth++) points.push(`${point}:${nth}`);
  return points;
}

/** Whether a point can be a chain's first (a fresh run): not one only recovery writes. */
export const canOpenChain = (point: string) => !RECOVERY_TYPES.some((t) => point.includes(`_commit:${t}:`));
