import { extractCitationMarkers } from "./citationMarkers.ts";
import type { Finding } from "./handoffSchema.ts";

/** A successful tool call of the executor's, as recorded: what a stopped Child gathered. */
export interface GatheredResult {
  toolUseId: string;
  tool: string;
  input: unknown;
  output: string;
}

/** Characters of a tool's output quoted in its finding; its input is shown up to INPUT_CHARS. */
export const EXCERPT_CHARS = 400;
const INPUT_CHARS = 160;

/**
 * The tool results a Child gathered but never wrote up, as findings: each
 * quotes a bounded excerpt of the output and cites its tool use (and the
 * citation markers the excerpt quotes), as an ordinary finding cites its
 * evidence, so validateHandoff accepts them. Low confidence: nobody read them
 * against the task. Pure.
 */
export function gatheredFindings(results: readonly GatheredResult[]): Finding[] {
  // A search result list is discovery, never evidence: it is not written up as a finding.
  return results.filter((r) => r.tool !== "web_search").map((r) => {
    const quoted = excerpt(r.output, EXCERPT_CHARS);
    return {
      claim: `Gathered before the stop, not summarised: ${r.tool} ${excerpt(JSON.stringify(r.input) ?? "", INPUT_CHARS)} returned: "${quoted}"`,
      evidence: { toolResults: [r.toolUseId], citations: extractCitationMarkers(quoted) },
      confidence: "low",
    };
  });
}

/** The text squashed to one line and cut at `max` characters, never inside a citation marker. */
function excerpt(text: string, max: number): string {
  const squashed = text.replace(/\s+/g, " ").trim();
  if (squashed.length <= max) return squashed;
  let cut = squashed.slice(0, max);
  const open = cut.lastIndexOf("[[");
  if (open > cut.lastIndexOf("]]")) cut = cut.slice(0, open);
  return `${cut.trimEnd()}…`;
}
