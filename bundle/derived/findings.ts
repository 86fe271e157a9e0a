import type { RecordedEvent } from "../../events/types.ts";
import type { Handoff } from "../../handoff/handoffSchema.ts";
import { type BundleRun, type DerivedFile, admissionOf, byExecutor, profileLabel, safeName, stableJson, textFile } from "../bundleRun.ts";

/**
 * findings/<executor>.md for each executor that handed off: every finding as
 * Claim / Evidence / Source (retrieved at) / Confidence, the sources being what
 * the tool calls its evidence names recorded in the same executor's stream.
 */
export function writeFindings(run: BundleRun): DerivedFile[] {
  const files: DerivedFile[] = [];
  for (const [executorId, events] of byExecutor(run)) {
    const committed = events.findLast((e): e is RecordedEvent<"handoff_committed"> => e.type === "handoff_committed");
    if (!committed) continue;
    files.push(textFile(`findings/${safeName(executorId)}.md`, renderFindings(executorId, events, committed)));
  }
  return files;
}

/** The anchor of a finding in its file, as answer.md links to it (1-based). */
export const findingAnchor = (index: number) => `finding-${index + 1}`;

function renderFindings(executorId: string, events: readonly RecordedEvent[], committed: RecordedEvent<"handoff_committed">): string {
  const handoff = committed.data.handoff as Partial<Handoff>;
  const admitted = admissionOf(events);
  const completed = new Map(
    events.filter((e): e is RecordedEvent<"tool_completed"> => e.type === "tool_completed").map((e) => [e.data.toolUseId, e]),
  );
  const lines = [`# Findings of ${admitted?.data.role ?? "executor"} ${executorId}`, ""];
  if (admitted) lines.push(`Profile: ${profileLabel(admitted.data.profile)} · model ${admitted.data.model}`, `Task: ${admitted.data.task.question}`, "");
  lines.push(`Handoff: event ${committed.eventId} (hash ${committed.hash})${committed.data.forced ? ", built by the runtime after repairs ran out" : ""}`);
  lines.push(`Execution state: ${handoff.executionState ?? "?"} · confidence ${handoff.confidence ?? "?"}`, "", `Summary: ${handoff.summary ?? ""}`);
  (handoff.findings ?? []).forEach((finding, i) => {
    const evidence = (finding.evidence ?? {}) as Record<string, unknown> & { toolResults?: string[]; citations?: string[] };
    lines.push("", `## Finding ${i + 1}`, `<a id="${findingAnchor(i)}"></a>`, "", `**Claim:** ${finding.claim}`, "", "**Evidence:**");
    for (const id of evidence.toolResults ?? []) {
      const result = completed.get(id);
      lines.push(`- tool result ${id}${result ? `: ${result.data.tool} (event ${result.eventId})` : ": no such completed tool call in this stream"}`);
    }
    for (const marker of evidence.citations ?? []) lines.push(`- citation ${marker}`);
    // Evidence fields added after this writer (quotes, offsets) are shown as recorded rather than dropped.
    for (const key of Object.keys(evidence).sort()) if (key !== "toolResults" && key !== "citations") lines.push(`- ${key}: ${stableJson(evidence[key])}`);
    lines.push("", "**Source (retrieved at):**");
    const sources = (evidence.toolResults ?? []).flatMap((id) => completed.get(id)?.data.sources ?? []);
    if (sources.length === 0) lines.push("- none recorded: the cited tool calls read nothing from outside the run");
    for (const s of sources) {
      const final = s.finalUrl && s.finalUrl !== s.url ? ` (final URL ${s.finalUrl})` : "";
      lines.push(`- ${s.url}${final} retrieved at ${s.fetchedAt}; raw sha256 ${s.rawSha256}, text sha256 ${s.textSha256}`);
    }
    lines.push("", `**Confidence:** ${finding.confidence}`);
  });
  if (handoff.gaps?.length) lines.push("", "## Gaps", "", ...handoff.gaps.map((g) => `- ${g}`));
  if (handoff.caveats?.length) lines.push("", "## Caveats", "", ...handoff.caveats.map((c) => `- ${c}`));
  return `${lines.join("\n")}\n`;
}
