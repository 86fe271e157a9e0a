import type { RecordedEvent } from "../../events/index.ts";
import { requestVersion } from "./requestVersion.ts";

/** The request version an executor's admission recorded; null when it was written before versions were (or upcast from then). */
export function recordedVersion(events: readonly RecordedEvent[]): string | null {
  const first = events[0];
  return first?.type === "executor_admitted" ? (first as RecordedEvent<"executor_admitted">).data.requestVersion : null;
}

/**
 * What a reader is told when a transcript runs under request code other than the one recorded; null when
 * they are the same. `offered`: whether the system prompt and tool specs the model was offered are in the
 * log (executor_admitted.offered); before they were, this host's tools and profiles rebuild them.
 */
export function versionNote(v: { recorded: string | null; current: string }, offered: boolean): string | null {
  if (v.recorded === v.current) return null;
  const recorded = v.recorded === null ? "before request versions were recorded" : `under request code ${v.recorded}`;
  const rebuilt = offered
    ? "what the model was shown and offered is read from the log, the per-turn narrowing of its terminal and delegate specs is this version's"
    : "what the model was shown is read from the log, the system prompt and tool specs are rebuilt by this version from this host's tools and profiles (they were not recorded then)";
  return `recorded ${recorded}; this Ariadne's request code is ${v.current}: ${rebuilt}`;
}

/**
 * For a whole run (verify, resume): the request code its executors were
 * admitted under, when any differs from this Ariadne's; null when all match.
 */
export function runVersionNote(events: readonly RecordedEvent[]): string | null {
  const current = requestVersion();
  const recorded = events.filter((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted").map((e) => e.data.requestVersion);
  const other = [...new Set(recorded.filter((v) => v !== current))];
  if (other.length === 0) return null;
  const named = other.map((v) => (v === null ? "before request versions were recorded" : `under request code ${v}`)).join(", ");
  return `${recorded.filter((v) => v !== current).length} of ${recorded.length} executors were recorded ${named}; this Ariadne's request code is ${current}: what their models were shown is read from the log`;
}
