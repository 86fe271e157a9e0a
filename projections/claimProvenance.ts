import type { RecordedEvent } from "../events/index.ts";
import { intentOf } from "../events/toolIntent.ts";
import type { ArtifactRef, EventRef, SourceRef, ToolCallChain, TurnChain } from "./claimTypes.ts";
import { type Projection, executorStreamOf, fieldsOf } from "./projection.ts";

/** One executor's facts a claim chain is built from, folded from its own stream. */
export interface ExecutorFacts {
  role: string | null;
  profile: { id: string; version: string; sha256: string } | null;
  admission: EventRef | null;
  /** Its turns by turn number, with the tool uses each asked for. */
  turns: Record<number, Omit<TurnChain, "reminders"> & { toolUses: { id: string; name: string }[] }>;
  /** Reminder texts raised for it, by id; and the ones each turn carried. */
  reminderTexts: Record<string, string>;
  delivered: Record<number, string[]>;
  /** Its tool calls by tool use id (the latest, when a model reused an id). */
  calls: Record<string, ToolCallChain>;
  /** Its committed handoff, and the turn whose handoff call wrote it (null: the runtime built it). */
  handoff: (EventRef & { forced: boolean; handoff: Record<string, unknown>; turn: number | null }) | null;
  /** Main's answer, when this executor settled with one. */
  answer: (EventRef & { answer: Record<string, unknown>; partial: boolean }) | null;
}

export interface ClaimProvenanceState {
  executors: Record<string, ExecutorFacts>;
}

const refOf = (e: RecordedEvent): EventRef => ({ eventId: e.eventId, streamId: e.streamId, streamVersion: e.streamVersion, globalPosition: e.globalPosition, hash: e.hash });

const emptyFacts = (): ExecutorFacts => ({ role: null, profile: null, admission: null, turns: {}, reminderTexts: {}, delivered: {}, calls: {}, handoff: null, answer: null });

/**
 * What a claim's provenance needs from each executor stream: admission (role,
 * profile binding), turns (model, digest, usage, the tool uses asked for),
 * reminders delivered into each turn, tool intents and outcomes, the committed
 * handoff and Main's answer. Each executor's facts come from its own stream
 * only, so the order streams arrive in does not matter.
 */
export const claimProvenance: Projection<ClaimProvenanceState> = {
  name: "claim-provenance",
  initial: () => ({ executors: {} }),
  evolve(state, event) {
    const executorId = executorStreamOf(event);
    if (!executorId) return state;
    const before = state.executors[executorId] ?? emptyFacts();
    const after = evolveFacts(before, event);
    return after === before ? state : { executors: { ...state.executors, [executorId]: after } };
  },
};

function evolveFacts(f: ExecutorFacts, event: RecordedEvent): ExecutorFacts {
  const d = fieldsOf(event);
  switch (event.type as string) {
    case "executor_admitted":
      return { ...f, role: String(d.role), profile: (d.profile as ExecutorFacts["profile"]) ?? null, admission: refOf(event) };
    case "turn": {
      const t = event as RecordedEvent<"turn">;
      const toolUses = t.data.response.content.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id, name: b.name }] : []));
      const turn = {
        executorId: event.metadata.executorId,
        turn: t.data.turn,
        model: t.data.model,
        provider: t.data.provider,
        scripted: t.data.scripted,
        requestDigest: t.data.request.digest,
        responseId: t.data.responseId ?? null,
        usage: t.data.usage,
        event: refOf(event),
        toolUses,
      };
      return { ...f, turns: { ...f.turns, [t.data.turn]: turn } };
    }
    case "reminder_raised":
      return { ...f, reminderTexts: { ...f.reminderTexts, [String(d.reminderId)]: String(d.text) } };
    case "reminder_delivered": {
      const turn = Number(d.turn);
      return { ...f, delivered: { ...f.delivered, [turn]: [...(f.delivered[turn] ?? []), String(d.reminderId)] } };
    }
    case "tool_called": {
      const id = String(d.toolUseId);
      const call: ToolCallChain = { toolUseId: id, tool: String(d.tool), input: d.input, turn: Number(d.turn), intent: refOf(event), outcome: null, sources: [], artifacts: [] };
      return { ...f, calls: { ...f.calls, [id]: call } };
    }
    case "tool_completed":
    case "tool_failed":
    case "effect_unknown": {
      const id = String(d.toolUseId);
      // A read-only call in one row: the intent is this very event.
      const intent = event.type === "effect_unknown" ? null : intentOf(event);
      const known = intent
        ? { toolUseId: id, tool: intent.tool, input: intent.input, turn: intent.turn, intent: refOf(event), outcome: null, sources: [], artifacts: [] }
        : (f.calls[id] ?? { toolUseId: id, tool: String(d.tool), input: null, turn: null, intent: null, outcome: null, sources: [], artifacts: [] });
      const done = event.type === "tool_completed" ? (event as RecordedEvent<"tool_completed">).data : null;
      const call: ToolCallChain = {
        ...known,
        outcome: { ...refOf(event), type: event.type },
        sources: done ? (done.sources ?? []).map(sourceRef) : [],
        artifacts: done ? done.artifacts.map((a): ArtifactRef => ({ kind: "artifact", id: a.id, path: a.path, sha256: a.sha256, ...("bytes" in a ? { bytes: a.bytes } : {}) })) : [],
      };
      return { ...f, calls: { ...f.calls, [id]: call } };
    }
    case "handoff_committed": {
      const h = event as RecordedEvent<"handoff_committed">;
      return { ...f, handoff: { ...refOf(event), forced: h.data.forced, handoff: h.data.handoff, turn: handoffTurn(f) } };
    }
    case "settled":
      if (d.outcome !== "answered" || !d.answer) return f;
      return { ...f, answer: { ...refOf(event), answer: d.answer as Record<string, unknown>, partial: d.partial === true } };
    default:
      return f;
  }
}

/**
 * The latest turn that called handoff: the one whose call the committed handoff is (a forced handoff salvages the
 * last such call, or none). A single agent commits its evidence with its answer call.
 */
function handoffTurn(f: ExecutorFacts): number | null {
  const terminal = f.role === "main" ? "answer" : "handoff";
  const turns = Object.values(f.turns).filter((t) => t.toolUses.some((u) => u.name === terminal));
  return turns.length ? Math.max(...turns.map((t) => t.turn)) : null;
}

function sourceRef(s: RecordedEvent<"tool_completed">["data"]["sources"][number]): SourceRef {
  const { kind, ...rest } = s;
  return { kind: "source", sourceKind: kind, ...rest };
}
