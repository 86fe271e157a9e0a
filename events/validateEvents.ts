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

/**
 * Validates a batch against the catalogue. Throws one ValidationError listing
 * every issue with its path (events.<i>.data.<field>), so nothing is written.
 */
export function validateEvents(events: readonly NewEvent[]): ValidEvent[] {
  const issues: IssueDetail[] = [];
  if (events.length === 0) issues.push({ path: ["events"], message: "at least one event is required" });
  const valid = events.map((event, i): ValidEvent | undefined => {
    const at = ["events", i];
    if (!event || typeof event !== "object" || typeof event.type !== "string" || !isEventType(event.type)) {
      issues.push({ path: [...at, "type"], message: `unknown event type ${JSON.stringify((event as { type?: unknown })?.type)}` });
      return undefined;
    }
    const version = currentSchemaVersion(event.type);
    const parsed = payloadSchema(event.type, version)!.safeParse(event.data);
    if (!parsed.success) {
      issues.push(...fromZodIssues(parsed.error.issues, [...at, "data"]));
      return undefined;
    }
    const metadata = normalizeMetadata(event.metadata, [...at, "metadata"], issues);
    const data = toStorableJson(parsed.data, [...at, "data"], issues);
    return metadata && { type: event.type, schemaVersion: version, data, metadata };
  });
  if (issues.length) throw new ValidationError("invalid event", issues);
  return valid as ValidEvent[];
}

function normalizeMetadata(m: EventMetadata | undefined, at: (string | number)[], issues: IssueDetail[]) {
  for (const key of ["runId", "executorId"] as const) {
    if (typeof m?.[key] !== "string" || m[key].length === 0) {
      issues.push({ path: [...at, key], message: "required non-empty string" });
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
 * Round-trips through JSON (dropping undefined, turning Dates into strings) and
 * refuses what PostgreSQL's jsonb cannot hold, naming where it is.
 */
function toStorableJson(value: unknown, at: (string | number)[], issues: IssueDetail[]): unknown {
  const walk = (v: unknown, path: (string | number)[]): void => {
    if (typeof v === "string") {
      if (v.includes("\u0000")) issues.push({ path, message: "strings may not contain U+0000" });
      else if (!v.isWellFormed()) issues.push({ path, message: "string has a lone UTF-16 surrogate" });
    } else if (typeof v === "number" && !Number.isFinite(v)) {
      issues.push({ path, message: "numbers must be finite" });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(value, at);
  return JSON.parse(JSON.stringify(value ?? null));
}
