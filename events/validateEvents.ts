import { currentSchemaVersion, isEventType, payloadSchema } from "./catalogue.ts";
import { type IssueDetail, ValidationError, fromZodIssues } from "../core/errors.ts";
import type { EventMetadata, NewEvent } from "./types.ts";

export interface ValidEvent {
  type: NewEvent["type"];
  schemaVersion: number;
  /** The parsed payload reduced to plain JSON: exactly what is stored and hashed. */
  data: unknown;
  metadata: Required<EventMetadata>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Validates a batch against the catalogue. Throws one ValidationError listing
 * every issue with its path (events.<i>.data.<field>), so nothing is written.
 */
export function validateEvents(events: readonly NewEvent[]): ValidEvent[] {
  const issues: IssueDetail[] = [];
  if (events.length === 0) issues.push({ path: ["events"], message: "at least one event is required" });
  const valid = events.map((event, i): ValidEvent | undefined => {
    const before = checkedBefore.get(event);
    if (before) return before;
    if (!event || typeof event !== "object" || typeof event.type !== "string" || !isEventType(event.type)) {
      issues.push({ path: ["events", i, "type"], message: `unknown event type ${JSON.stringify((event as { type?: unknown })?.type)}` });
      return undefined;
    }
    const version = currentSchemaVersion(event.type);
    const parsed = payloadSchema(event.type, version)!.safeParse(event.data);
    if (!parsed.success) {
      issues.push(...fromZodIssues(parsed.error.issues, ["events", i, "data"]));
      return undefined;
    }
    const { eventId } = event;
    if (eventId !== undefined && (typeof eventId !== "string" || !UUID.test(eventId))) {
      issues.push({ path: ["events", i, "eventId"], message: "when given, a UUID" });
    }
    const metadata = normalizeMetadata(event.metadata, i, issues);
    const data = toStorableJson(parsed.data, i, issues);
    return metadata && { type: event.type, schemaVersion: version, data, metadata };
  });
  if (issues.length) throw new ValidationError("invalid event", issues);
  return valid as ValidEvent[];
}

/** Events `checkedAhead` returned, each with what it was validated as. */
const checkedBefore = new WeakMap<object, ValidEvent>();

/**
 * Validates events a writer keeps before appending them (an executor's held
 * outcomes), once: it returns them frozen, each payload replaced by its stored
 * form, and an append of these very objects does not parse them again.
 * Throws ValidationError as an append would.
 */
export function checkedAhead(events: readonly NewEvent[]): NewEvent[] {
  const valid = validateEvents(events);
  return events.map((e, i) => {
    const kept = Object.freeze({ ...e, data: valid[i].data } as NewEvent);
    checkedBefore.set(kept, valid[i]);
    return kept;
  });
}

function normalizeMetadata(m: EventMetadata | undefined, i: number, issues: IssueDetail[]) {
  for (const key of ["runId", "executorId"] as const) {
    if (typeof m?.[key] !== "string" || m[key].length === 0) {
      issues.push({ path: ["events", i, "metadata", key], message: "required non-empty string" });
    }
  }
  if (issues.length) return undefined;
  return {
    runId: m!.runId,
    executorId: m!.executorId,
    causationId: m!.causationId ?? null,
    correlationId: m!.correlationId ?? m!.runId,
  };
}

/**
 * The value as a JSON round trip gives it back (undefined dropped, Dates as
 * strings), refusing what PostgreSQL's jsonb cannot hold and naming where it is.
 * One walk checks and copies plain JSON; the path of a node is built only for
 * an issue, and only a value with something JSON would convert (toJSON, boxed
 * values, -0, a "__proto__" key) takes the round trip.
 */
function toStorableJson(value: unknown, i: number, issues: IssueDetail[]): unknown {
  const path: (string | number)[] = [];
  let roundTrip = false;
  const issue = (message: string) => issues.push({ path: ["events", i, "data", ...path], message });
  const copy = (v: unknown): unknown => {
    switch (typeof v) {
      case "string":
        if (v.includes("\u0000")) issue("strings may not contain U+0000");
        else if (!v.isWellFormed()) issue("string has a lone UTF-16 surrogate");
        return v;
      case "number":
        if (!Number.isFinite(v)) issue("numbers must be finite");
        else if (Object.is(v, -0)) roundTrip = true;
        return v;
      case "boolean":
        return v;
      case "bigint":
        roundTrip = true;
        return v;
      case "object": {
        if (v === null) return v;
        if (typeof (v as { toJSON?: unknown }).toJSON === "function" || v instanceof Number || v instanceof String || v instanceof Boolean) roundTrip = true;
        if (Array.isArray(v)) {
          const out: unknown[] = new Array(v.length);
          for (let k = 0; k < v.length; k++) {
            path.push(k);
            const x = copy(v[k]);
            out[k] = x === undefined ? null : x;
            path.pop();
          }
          return out;
        }
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) {
          path.push(k);
          const x = copy((v as Record<string, unknown>)[k]);
          if (x !== undefined) out[k] = x;
          if (k === "__proto__") roundTrip = true;
          path.pop();
        }
        return out;
      }
      default:
        // undefined, functions and symbols: JSON leaves them out of objects and writes null in arrays.
        return undefined;
    }
  };
  const copied = copy(value);
  if (roundTrip) return JSON.parse(JSON.stringify(value ?? null));
  return copied ?? null;
}
