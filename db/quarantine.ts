import { AriadneError } from "../core/errors.ts";
import type { Database } from "./openDatabase.ts";

/** A stream whose head records more events than its table holds: rows lost behind the store's back. */
export interface StreamDamage {
  runId: string;
  streamId: string;
  /** Events the stream's head records. */
  recorded: number;
  /** Events that can be read back. */
  readable: number;
  /** The first version that cannot be read. */
  missing: number;
}

/**
 * The runs the consistency check at open found damaged, per Database: each is
 * quarantined (its reads refused with DamagedRunError naming the stream and
 * version), so one lost row does not take every other run down with it.
 */
const quarantines = new WeakMap<Database, Map<string, StreamDamage[]>>();

export function quarantine(database: Database, found: readonly StreamDamage[]): void {
  const byRun = quarantines.get(database) ?? new Map<string, StreamDamage[]>();
  for (const d of found) byRun.set(d.runId, [...(byRun.get(d.runId) ?? []), d]);
  quarantines.set(database, byRun);
}

/** The run's damaged streams, or undefined when it is not quarantined. */
export function damageOfRun(database: Database, runId: string): StreamDamage[] | undefined {
  return quarantines.get(database)?.get(runId);
}

/** The stream's damage, by stream id alone (reads that do not name their run). */
export function damageOfStream(database: Database, streamId: string): StreamDamage | undefined {
  for (const streams of quarantines.get(database)?.values() ?? []) for (const d of streams) if (d.streamId === streamId) return d;
  return undefined;
}

export function quarantinedRuns(database: Database): string[] {
  return [...(quarantines.get(database)?.keys() ?? [])];
}

export function describeDamage(d: StreamDamage): string {
  return `stream ${d.streamId} cannot be read from version ${d.missing} (its head records ${d.recorded} events, ${d.readable} can be read)`;
}

/** A read of a quarantined run: it names the stream and version, and says the rest of the store is unaffected. */
export class DamagedRunError extends AriadneError {
  constructor(readonly damage: StreamDamage) {
    super(
      "DAMAGED_RUN",
      500,
      `run ${damage.runId} is damaged: ${describeDamage(damage)}; it is quarantined (other runs are unaffected); restore the store from a backup to read it`,
    );
  }
}

/** Throws DamagedRunError when the run is quarantined. */
export function refuseDamagedRun(database: Database, runId: string): void {
  const damage = damageOfRun(database, runId);
  if (damage) throw new DamagedRunError(damage[0]);
}

export function refuseDamagedStream(database: Database, streamId: string): void {
  const damage = damageOfStream(database, streamId);
  if (damage) throw new DamagedRunError(damage);
}
