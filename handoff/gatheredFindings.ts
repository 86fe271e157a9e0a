import { extractCitationMarkers } from "./citationMarkers.ts";
import type { Finding } from "./handoffSchema.ts";

/** A successful tool call of the executor's, as recorded: what a stopped Child gathered. */
export interface GatheredResult {
  toolUseId: string;
  tool: string;
  input: unknown;
  output: string;
  /** The blobs the call stored (a source's text, an artifact), each with what it is ("source https://…"). */
  blobs?: readonly { sha256: string; label: string }[];
}

/** Characters of a tool's output quoted in its finding; its input is shown up to INPUT_CHARS. */
export const EXCERPT_CHARS = 400;
const INPUT_CHARS = 160;

/**
 * The tool results a Child gathered but never wrote up, as "gathered, not summarised" material: each a
 * finding marked `gathered`, low confidence, citing its tool use (whose recorded sources are its blobs,
 * named in the text too) and showing a bounded excerpt of the output. Nobody read them against the task,
 * so they are never observed findings: Main can cite them only as unverified, and the checker does not
 * count a claim resting on them alone as observed. Pure.
 */
export function gatheredFindings(results: readonly GatheredResult[]): Finding[] {
  // A search result list is discovery, never evidence: it is not written up as a finding.
  return results.filter((r) => r.tool !== "web_search").map((r) => {
    const quoted = excerpt(r.output, EXCERPT_CHARS);
    const blobs = r.blobs?.length ? ` (blobs: ${r.blobs.map((b) => `${b.sha256}, ${b.label}`).join("; ")})` : "";
    return {
      claim: `Gathered, not summarised (unverified): ${r.tool} ${excerpt(JSON.stringify(r.input) ?? "", INPUT_CHARS)}${blobs} returned: ${quoted}`,
      evidence: { toolResults: [r.toolUseId], citations: extractCitationMarkers(quoted) },
      confidence: "low",
      gathered: true,
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
