import type { EventData } from "./catalogue.ts";
import type { RecordedEvent } from "./types.ts";

/** A tool call's intent as the log records it, wherever it is recorded. */
export type ToolIntent = EventData<"tool_called"> & { eventId: string };

/**
 * The intent a recorded event carries: a tool_called, or the outcome of a
 * read-only call whose intent rode with it (one row: tool_completed v3 or
 * tool_failed v2 with `intent`; the event's id is the intent's). Every reader
 * of intents goes through here, so logs with separate events and logs with
 * one row per read-only call read alike.
 */
export function intentOf(e: RecordedEvent): ToolIntent | null {
  if (e.type === "tool_called") return { ...e.data, eventId: e.eventId };
  if ((e.type === "tool_completed" || e.type === "tool_failed") && e.data.intent) {
    const { turn, input, effect } = e.data.intent;
    return { turn, toolUseId: e.data.toolUseId, tool: e.data.tool, input, effect, eventId: e.eventId };
  }
  return null;
}
