import { canonicalJson } from "../core/canonicalJson.ts";
import type { RecordedEvent } from "../events/types.ts";

export type ItemKind = "turn" | "tool" | "handoff" | "reminder" | "review" | "cancel" | "budget" | "lifecycle";

export interface TimelineItem {
  position: number;
  kind: ItemKind;
  label: string;
  /** The details, shown on hover. */
  detail: string;
}

/** One executor's stream (or the run's own), its events in log order. */
export interface Lane {
  streamId: string;
  label: string;
  items: TimelineItem[];
}

// Keys sorted: the database (jsonb) and events.jsonl hand objects back with their keys in different orders.
const amount = (a: Record<string, unknown>) => Object.entries(a).toSorted(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([k, v]) => `${k} ${String(v)}`).join(", ");

/** How one event shows on its lane; null for an event type the timeline does not show. */
function itemOf(e: RecordedEvent): Omit<TimelineItem, "position"> | null {
  const d = e.data as Record<string, any>;
  switch (e.type) {
    case "executor_admitted":
      return { kind: "lifecycle", label: "admitted", detail: `${d.role}${d.profile ? ` · ${d.profile.id} v${d.profile.version}` : ""} · ${d.model} · ${d.task.question}` };
    case "turn":
      return { kind: "turn", label: `turn ${d.turn}`, detail: `${d.model} (${d.provider}${d.scripted ? ", scripted" : ""}) · ${d.usage.inputTokens} in / ${d.usage.outputTokens} out tokens · request ${d.request.digest}` };
    case "turn_failed":
      return { kind: "turn", label: "turn failed", detail: canonicalJson(d) ?? "" };
    case "tool_called":
      return { kind: "tool", label: d.tool, detail: `${d.toolUseId} · ${canonicalJson(d.input) ?? ""}` };
    case "tool_completed":
    case "tool_failed":
    case "effect_unknown":
      // A read-only call in one row shows its input too (there is no tool_called before it).
      return {
        kind: "tool",
        label: `${d.tool ?? "tool"} ${e.type === "tool_completed" ? "done" : e.type === "tool_failed" ? "failed" : "unknown"}`,
        detail: d.intent ? `${d.toolUseId} · ${canonicalJson(d.intent.input) ?? ""}` : `${d.toolUseId}`,
      };
    case "handoff_committed":
      return { kind: "handoff", label: d.forced ? "handoff (forced)" : "handoff", detail: `${Array.isArray(d.handoff.findings) ? d.handoff.findings.length : 0} findings · event ${e.hash}` };
    case "handoff_consumed":
      return { kind: "handoff", label: "handoff received", detail: `from ${d.childExecutorId} · event ${d.handoffEventId}` };
    case "reminder_raised":
      return { kind: "reminder", label: "reminder", detail: d.text };
    case "reminder_delivered":
      return { kind: "reminder", label: "reminder delivered", detail: `${d.reminderId} into turn ${d.turn}` };
    case "review_requested":
      return { kind: "review", label: `review (${d.mode})`, detail: `by ${d.reviewerExecutorId}: ${d.subject}` };
    case "review_delivered":
      return { kind: "review", label: d.delivered ? "review delivered" : "review not delivered", detail: d.advice ?? "" };
    case "cancel_requested":
    case "cancelled":
      return { kind: "cancel", label: e.type === "cancelled" ? "cancelled" : "cancel asked", detail: `${d.by}: ${d.reason}` };
    case "budget_reserved":
      return { kind: "budget", label: `reserve ${d.purpose}`, detail: amount(d.amount) };
    case "budget_settled":
      return { kind: "budget", label: "settle", detail: amount(d.actual) };
    case "budget_refused":
      return { kind: "budget", label: "refused", detail: `${d.limit}: ${d.reason}` };
    case "settled":
      return { kind: "lifecycle", label: d.outcome === "answered" ? "answered" : "settled", detail: d.partial ? "partial" : "" };
    case "failed":
      return { kind: "lifecycle", label: "failed", detail: `${d.kind}: ${d.reason}` };
    case "recovered":
    case "run_submitted":
    case "run_interrupted":
    case "run_resumed":
      return { kind: "lifecycle", label: e.type.replace("run_", ""), detail: "" };
    case "run_sealed":
      return { kind: "lifecycle", label: "sealed", detail: `root ${d.rootHash}${d.signature ? ` · signed by ${d.signature.keyId}` : ""}` };
    default:
      return { kind: "lifecycle", label: (e as RecordedEvent).type, detail: "" };
  }
}

/** A lane per executor, in the order their streams began, then the run's own stream. */
export function timelineOf(events: readonly RecordedEvent[]): Lane[] {
  const lanes = new Map<string, Lane>();
  for (const e of events) {
    let lane = lanes.get(e.streamId);
    if (!lane) lanes.set(e.streamId, (lane = { streamId: e.streamId, label: laneLabel(e), items: [] }));
    const item = itemOf(e);
    if (item) lane.items.push({ position: e.globalPosition, ...item });
  }
  const all = [...lanes.values()];
  return [...all.filter((l) => l.streamId.startsWith("executor-")), ...all.filter((l) => !l.streamId.startsWith("executor-"))];
}

function laneLabel(first: RecordedEvent): string {
  if (first.type !== "executor_admitted") return first.streamId.startsWith("executor-") ? first.metadata.executorId : "run";
  const d = first.data;
  return `${d.role}${d.profile ? ` · ${d.profile.id}` : ""} · ${first.metadata.executorId.slice(0, 8)}`;
}
