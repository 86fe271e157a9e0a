import type { RecordedEvent } from "./types.ts";

/**
 * The blobs an executor's admission names, with what each holds: what its
 * model was offered (its system prompt and tool specs) and, with it, its bound
 * profile's file bytes under the binding's sha256. An admission recorded
 * before these were (`offered` null or absent) names none.
 */
export function admissionBlobs(e: RecordedEvent): [sha256: string, what: string][] {
  if (e.type !== "executor_admitted" || !e.data.offered) return [];
  const who = `executor ${e.metadata.executorId}`;
  const named: [string, string][] = [[e.data.offered, `what ${who} was offered at admission: its system prompt and tool specs`]];
  const p = e.data.profile;
  if (p) named.push([p.sha256, `profile ${p.id} v${p.version} as bound to ${who}`]);
  return named;
}
