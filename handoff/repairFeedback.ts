import type { HandoffFacts } from "./handoffFacts.ts";
import { formatPath } from "./rawShape.ts";
import type { HandoffIssue, KeptReference } from "./reviewReferences.ts";

const LISTED_IDS_MAX = 30;
const REFERENCE_KINDS = new Set(["misplaced_reference", "unknown_tool_result", "unseen_citation", "not_a_citation"]);

/**
 * Text for the model after a rejected handoff. It names each problem and lists
 * the evidence that checked out, because feedback that stresses only what to
 * remove teaches a model to throw away good references along with bad ones.
 */
export function repairFeedback(issues: readonly HandoffIssue[], kept: readonly KeptReference[], facts: HandoffFacts): string {
  const parts: string[] = [
    "Your handoff was not accepted yet. Repair only the items below and call handoff again; keep everything else as it was, including your findings, their valid evidence, gaps and caveats.",
    ["Problems to repair:", ...issues.map((i) => `- ${formatPath(i.path)}: ${i.message}`)].join("\n"),
  ];

  if (issues.some((i) => REFERENCE_KINDS.has(i.kind))) {
    parts.push(
      [
        "Evidence has two kinds of reference, each in its own field:",
        '- evidence.toolResults: tool_use ids of your own successful tool calls, e.g. "toolu_01A".',
        "- evidence.citations: citation markers that appeared in your tool outputs, e.g. [[corpus:adiv-prospectus#p12]].",
        "A reference in the wrong field is still good evidence: move it to the right field instead of deleting it.",
      ].join("\n"),
    );
  }

  parts.push(keptSection(kept));

  if (issues.some((i) => i.kind === "unknown_tool_result")) {
    const ids = [...facts.toolResultIds];
    const shown = ids.slice(0, LISTED_IDS_MAX).join(", ");
    parts.push(
      `Your recorded successful tool calls, usable in toolResults: ${shown}${ids.length > LISTED_IDS_MAX ? `, and ${ids.length - LISTED_IDS_MAX} more` : ""}.`,
    );
  }

  parts.push(
    "If a finding is left without verifiable evidence, keep the claim, set its confidence to low and say why in caveats. Do not drop valid evidence to get the handoff accepted.",
  );
  return parts.join("\n\n");
}

function keptSection(kept: readonly KeptReference[]): string {
  if (kept.length === 0) {
    return "No reference could be verified yet. Moving misplaced references to their right field keeps them; cite the tool_use ids and markers of your own tool calls for the rest.";
  }
  const groups = new Map<string, string[]>();
  for (const k of kept) {
    // Group by the list a reference sits in, not its index, so the model sees them together.
    const list = formatPath(typeof k.path.at(-1) === "number" ? k.path.slice(0, -1) : k.path);
    groups.set(list, [...(groups.get(list) ?? []), JSON.stringify(k.ref)]);
  }
  return ["Valid references to keep exactly where they are:", ...[...groups].map(([list, refs]) => `- ${list}: ${refs.join(", ")}`)].join("\n");
}
