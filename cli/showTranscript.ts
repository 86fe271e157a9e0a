import { searchResultSummary } from "../models/searchResultSummary.ts";
import { type TranscriptTurn, versionNote } from "../actors/index.ts";
import { type OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import type { AssistantBlock, Message } from "../models/types.ts";
import { formatTokens, labelledUsage } from "./formatTokens.ts";
import { transcriptOf } from "../runs/index.ts";
import { errorLine } from "./errorLine.ts";

/** `ariadne transcript EXECUTOR_ID`: the rebuilt requests and responses, digests checked. */
export async function showTranscript(
  options: OpenOptions & { executorId: string; json: boolean; out: (line: string) => void },
): Promise<number> {
  const { store, close } = await openStore({ ...options, readOnly: true });
  try {
    const transcript = await transcriptOf(store, options.executorId);
    if (options.json) {
      const turns = transcript.turns.map((t) => ({ ...t, usage: labelledUsage(t.usage, t.scripted) }));
      options.out(JSON.stringify({ ...transcript, turns }));
    } else {
      const out = (...lines: string[]) => lines.forEach((l) => options.out(l));
      const first = transcript.turns[0]?.request;
      out(`transcript of ${transcript.role} ${transcript.executorId} in run ${transcript.runId}`);
      const note = versionNote(transcript.requestVersion, transcript.offered !== null);
      out(note ? `request code: ${note}` : `request code: ${transcript.requestVersion.current} (as recorded)`);
      out(
        transcript.offered
          ? `offered: read from the log (blob ${transcript.offered}): the system prompt and tool specs as offered at admission`
          : "offered: not recorded (admitted before the offered specs were): the system prompt and tool specs are rebuilt from this host's tools and profiles",
      );
      if (first) out(`system:\n${first.system}`, `tools: ${first.tools.map((t) => t.name).join(", ")}`);
      let seen = 0;
      for (const t of transcript.turns) {
        out("", turnHeading(t));
        // Each request repeats the history; show what is new in it. Assistant messages are earlier responses.
        for (const m of t.request.messages.slice(seen)) if (m.role === "user") out(...renderMessage(m));
        seen = t.request.messages.length;
        out(...t.response.content.map((b) => `  < ${renderBlock(b)}`));
      }
      const o = transcript.outcome;
      out("", `outcome: ${o ? `${o.kind}${"reason" in o ? `: ${o.reason}` : ""}` : "not finished"}`);
    }
    const bad = transcript.turns.find((t) => !t.digestMatches);
    if (bad) {
      const note = versionNote(transcript.requestVersion, transcript.offered !== null);
      // Under another request code a changed system prompt or tool spec is a reason; under the same one, nothing explains it.
      const why = note ? ` (${note})` : "";
      errorLine(`ariadne: turn ${bad.turn} of ${options.executorId}: the request rebuilt from the log does not match the digest recorded with it${why}`);
      return 1;
    }
    return 0;
  } finally {
    await close();
  }
}

const turnHeading = (t: TranscriptTurn) =>
  `turn ${t.turn} · ${t.scripted ? `scripted (${t.model})` : t.model} · ${formatTokens(t.usage, t.scripted)} · request digest ${t.digestMatches ? "verified" : "MISMATCH"}`;

function renderMessage(m: Message): string[] {
  if (typeof m.content === "string") return [`  > ${m.content}`];
  return m.content.map((b) =>
    b.type === "tool_result" ? `  > tool result for ${b.tool_use_id}${b.is_error ? " (error)" : ""}: ${b.content}` : `  > ${renderBlock(b as AssistantBlock)}`,
  );
}

function renderBlock(b: AssistantBlock): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "tool_use":
      return `tool_use ${b.id} ${b.name} ${JSON.stringify(b.input)}`;
    case "server_tool_use":
      return `server_tool_use ${b.id} ${b.name} ${JSON.stringify(b.input)} (run by Anthropic)`;
    case "web_search_tool_result":
      return `web_search_tool_result for ${b.tool_use_id}: ${searchResultSummary(b)}`;
  }
}
