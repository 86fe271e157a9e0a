import { searchResultSummary } from "../../models/searchResultSummary.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { type BundleRun, type DerivedFile, byExecutor, fenced, profileLabel, safeName, stableJson, textFile } from "../bundleRun.ts";

/**
 * transcripts/<executor>.md: what each executor was given, what its model said
 * turn by turn, what each tool returned and what it handed off, from its own
 * stream alone (as `ariadne transcript` reads it, without rebuilding requests).
 */
export function writeTranscripts(run: BundleRun): DerivedFile[] {
  return [...byExecutor(run)].map(([executorId, events]) => textFile(`transcripts/${safeName(executorId)}.md`, renderTranscript(executorId, events)));
}

function renderTranscript(executorId: string, events: readonly RecordedEvent[]): string {
  const lines = [`# Transcript of executor ${executorId}`];
  for (const e of events) lines.push("", ...renderEvent(e));
  return `${lines.join("\n")}\n`;
}

function renderEvent(e: RecordedEvent): string[] {
  const at = `v${e.streamVersion} · ${e.recordedAt.toISOString()}`;
  switch (e.type) {
    case "executor_admitted":
      return [
        `## Admitted as ${e.data.role} (${at})`,
        "",
        `- Parent: ${e.data.parentExecutorId ?? "none"}; depth ${e.data.depth}`,
        `- Profile: ${profileLabel(e.data.profile)}; model ${e.data.model}`,
        `- Tools granted: ${e.data.grantedTools.join(", ") || "(none)"}`,
        // What its model was offered (system prompt and tool specs), recorded since v3: the blob under blobs/.
        ...(e.data.offered ? [`- Offered: system prompt and tool specs in blob ${e.data.offered}`] : []),
        "",
        "Task:",
        "",
        fenced(`question: ${e.data.task.question}\ncontext: ${e.data.task.context}\ndone when: ${e.data.task.doneWhen}`),
      ];
    case "turn":
      return [
        `## Turn ${e.data.turn} (${at})`,
        "",
        `Model ${e.data.model} (${e.data.provider}${e.data.scripted ? ", scripted" : ""}); ${e.data.usage.inputTokens}+${e.data.usage.outputTokens} tokens; request digest ${e.data.request.digest}; stop ${e.data.response.stopReason}`,
        ...e.data.response.content.flatMap((b) => {
          if (b.type === "text") return ["", fenced(b.text, "text")];
          if (b.type === "tool_use") return ["", `Tool call ${b.name} (${b.id}):`, "", fenced(stableJson(b.input, 2), "json")];
          if (b.type === "server_tool_use") return ["", `Server-side ${b.name} (${b.id}), run by Anthropic:`, "", fenced(stableJson(b.input, 2), "json")];
          return ["", `Server-side search result (${b.tool_use_id}): ${searchResultSummary(b)}`];
        }),
        ...(e.data.searches ?? []).map(({ toolUseId, source: s, error }) =>
          s ? `- search results of ${toolUseId}: ${s.url} retrieved at ${s.fetchedAt}, raw sha256 ${s.rawSha256}` : `- search ${toolUseId}: ${error?.note ?? "not stored"}`,
        ),
      ];
    case "tool_completed":
      return [
        `### ${e.data.tool} result (${e.data.toolUseId}, ${at})`,
        "",
        fenced(e.data.output),
        ...(e.data.sources ?? []).map((s) => `- source ${s.url} retrieved at ${s.fetchedAt}, raw sha256 ${s.rawSha256}`),
        ...e.data.artifacts.map((a) => `- artifact ${a.id} ${a.path}, sha256 ${a.sha256}`),
      ];
    case "tool_failed":
      return [`### ${e.data.tool} failed (${e.data.toolUseId}, ${at}): ${e.data.reason}: ${e.data.message}`];
    case "handoff_committed":
      return [`## Handoff (${at})${e.data.forced ? ", forced" : ""}`, "", fenced(stableJson(e.data.handoff, 2), "json")];
    case "handoff_consumed":
      return [`### Handoff of Child ${e.data.childExecutorId} received (${e.data.toolUseId}, ${at})`];
    case "reminder_delivered":
      return [`- reminder ${e.data.reminderId} delivered into turn ${e.data.turn} (${at})`];
    case "reminder_raised":
      return [`- reminder ${e.data.reminderId} raised (${at}): ${e.data.text}`];
    case "settled":
      return [`## Settled: ${e.data.outcome}${e.data.partial ? ", partial" : ""} (${at})`];
    case "failed":
    case "cancelled":
      return [`## ${e.type === "failed" ? "Failed" : "Cancelled"} (${at}): ${e.data.reason}`];
    default:
      return [`- ${e.type} (${at})`];
  }
}
