import { eventTypes } from "../../events/index.ts";
import { HttpProblem } from "../problem.ts";

/** The live-only event type: Main's reply as it streams (not recorded, no id). */
export const ANSWER_DELTA = "answer.delta";

/** What a stream sends: recorded types (absent: all) and whether Main's streaming reply too. */
export interface EventFilter {
  types?: ReadonlySet<string>;
  deltas: boolean;
}

/**
 * `?types=a,b,answer.delta`: recorded event types to send, and `answer.delta`
 * for Main's reply as it streams. Without `types`: every recorded event, no
 * deltas. Only `answer.delta`: deltas and every recorded event. An unknown
 * type is a 422 naming it.
 */
export function eventFilter(raw: string | undefined): EventFilter {
  if (raw === undefined) return { deltas: false };
  const asked = raw.split(",").map((t) => t.trim()).filter(Boolean);
  const known = new Set<string>([...eventTypes, ANSWER_DELTA]);
  const unknown = asked.filter((t) => !known.has(t));
  if (unknown.length) {
    const message = `unknown event type${unknown.length > 1 ? "s" : ""} ${unknown.map((t) => JSON.stringify(t)).join(", ")}; known: ${[...known].join(", ")}`;
    throw new HttpProblem(422, "UNKNOWN_EVENT_TYPE", message, { issues: [{ path: ["query", "types"], message }] });
  }
  const recorded = asked.filter((t) => t !== ANSWER_DELTA);
  return { types: recorded.length ? new Set(recorded) : undefined, deltas: asked.includes(ANSWER_DELTA) };
}
