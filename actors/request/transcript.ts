import type { RecordedEvent } from "../../events/index.ts";
import type { AssistantBlock, ModelRequest } from "../../models/types.ts";
import { type RequestContext, buildRequest, requestDigest } from "./buildRequest.ts";
import { foldExecutor } from "../fold/executorMachine.ts";
import type { Outcome, Role } from "../fold/executorState.ts";
import { requestVersion } from "./requestVersion.ts";
import { recordedVersion } from "./versionNote.ts";

export interface TranscriptTurn {
  turn: number;
  /** The request rebuilt from the log, exactly as it was sent if `digestMatches`. */
  request: ModelRequest;
  digestMatches: boolean;
  response: { content: AssistantBlock[]; stopReason: string };
  model: string;
  scripted: boolean;
  usage: { inputTokens: number; outputTokens: number };
}

export interface Transcript {
  executorId: string;
  runId: string;
  role: Role;
  turns: TranscriptTurn[];
  /** Every recorded tool outcome (completed, failed, unknown, consumed handoffs), in order. */
  toolEvents: RecordedEvent[];
  outcome: Outcome | null;
  /**
   * The request code the executor was admitted under (null: before versions were recorded) and the
   * one that rebuilt these requests. The messages are the log's whatever the version; under another
   * version the system prompt and tool specs are this one's, so a digest may differ for that reason.
   */
  requestVersion: { recorded: string | null; current: string };
  /**
   * The sha256 of the blob of what it was offered at admission (system prompt and tool specs), which its
   * requests were rebuilt from; null when admitted before that was recorded (rebuilt from this host's tools and profiles).
   */
  offered: string | null;
}

const TOOL_EVENTS = new Set(["tool_called", "tool_completed", "tool_failed", "effect_unknown", "handoff_consumed"]);

/**
 * An executor's full transcript, rebuilt from its stream: every request it
 * sent (proven by the digest recorded with each turn), every response, every
 * tool result. Kept out of the parent's context; read on demand by id.
 */
export function rebuildTranscript(events: readonly RecordedEvent[], ctx: RequestContext): Transcript {
  const fold = foldExecutor();
  const turns: TranscriptTurn[] = [];
  for (const event of events) {
    if (event.type === "turn") {
      const request = buildRequest(fold.state, ctx);
      turns.push({
        turn: event.data.turn,
        request,
        digestMatches: requestDigest(request) === event.data.request.digest,
        response: event.data.response as TranscriptTurn["response"],
        model: event.data.model,
        scripted: event.data.scripted,
        usage: event.data.usage,
      });
    }
    fold.apply(event);
  }
  const s = fold.state;
  return {
    executorId: s.executorId,
    runId: s.runId,
    role: s.role,
    turns,
    toolEvents: events.filter((e) => TOOL_EVENTS.has(e.type)),
    outcome: s.outcome,
    requestVersion: { recorded: recordedVersion(events), current: requestVersion() },
    offered: events[0]?.type === "executor_admitted" ? (events[0] as RecordedEvent<"executor_admitted">).data.offered : null,
  };
}

