import { classifyArtifact, classifyReference, type RefField, type RefVerdict } from "./classifyReference.ts";
import type { HandoffFacts } from "./handoffFacts.ts";
import type { HandoffIssue, HandoffIssueKind, KeptReference } from "./handoffIssue.ts";
import { reviewQuotes } from "./reviewQuotes.ts";
import { asArray, asRecord, formatPath } from "./rawShape.ts";

export type { HandoffIssue, HandoffIssueKind, KeptReference } from "./handoffIssue.ts";

/**
 * Checks every evidence reference and artifact against what the runtime
 * recorded, on the raw candidate so one round of feedback names every problem.
 */
export function reviewReferences(candidate: unknown, facts: HandoffFacts): { issues: HandoffIssue[]; kept: KeptReference[] } {
  const issues: HandoffIssue[] = [];
  const kept: KeptReference[] = [];
  const root = asRecord(candidate);

  asArray(root.findings).forEach((f, i) => {
    const evidence = asRecord(asRecord(f).evidence);
    for (const field of ["toolResults", "citations"] as const) {
      asArray(evidence[field]).forEach((raw, j) => {
        if (typeof raw !== "string" || raw.trim() === "") return; // the schema reports these
        const ref = raw.trim();
        const path = ["findings", i, "evidence", field, j];
        const verdict = classifyReference(ref, field, facts);
        if (verdict.kind === "valid") kept.push({ path, ref });
        else if (verdict.kind === "unknown_tool_result" && facts.serverSearches?.has(ref)) {
          issues.push({
            path,
            ref,
            kind: "discovery_only",
            message: `"${ref}" is a web search Anthropic ran for you: its results are discovery, never evidence. Fetch the page with web_fetch (or read it with document_read) and cite that call, or drop this one reference.`,
          });
        } else issues.push({ path, ref, kind: kindOf(verdict), message: explain(ref, verdict, i) });
      });
    }
    const refs = asArray(evidence.toolResults).filter((r): r is string => typeof r === "string").map((r) => r.trim());
    if (refs.length && facts.discoveryOnly && refs.every((r) => facts.discoveryOnly!.has(r)) && asArray(evidence.quotes).length === 0) {
      issues.push({
        path: ["findings", i, "evidence", "toolResults"],
        ref: refs[0],
        kind: "discovery_only",
        message: `finding ${i} rests only on web_search results (${refs.join(", ")}): search results and their snippets are discovery, never evidence. Fetch the page with web_fetch (or read it with document_read) and cite that call, or move the claim to gaps.`,
      });
    }
    const quotes = reviewQuotes(evidence.quotes, ["findings", i, "evidence", "quotes"], facts);
    issues.push(...quotes.issues);
    kept.push(...quotes.kept);
  });

  asArray(root.artifacts).forEach((a, k) => {
    const art = asRecord(a);
    if (typeof art.id !== "string") return;
    const path = ["artifacts", k];
    const verdict = classifyArtifact({ id: art.id, path: art.path, sha256: art.sha256 }, facts);
    if (verdict.kind === "valid") kept.push({ path, ref: art.id });
    else if (verdict.kind === "unproduced") {
      issues.push({
        path,
        ref: art.id,
        kind: "unproduced_artifact",
        message: `artifact "${art.id}" was not produced by any of your tool calls. List only artifacts your tools reported writing; if the output was never written, leave this entry out and name the missing output in gaps.`,
      });
    } else {
      issues.push({
        path,
        ref: art.id,
        kind: "artifact_mismatch",
        message: `artifact "${art.id}" was recorded with path "${verdict.recorded.path}" and sha256 "${verdict.recorded.sha256}"; copy those values exactly.`,
      });
    }
  });

  return { issues, kept };
}

type Problem = Exclude<RefVerdict, { kind: "valid" }>;

function kindOf(verdict: Problem): HandoffIssueKind {
  return verdict.kind === "misplaced" ? "misplaced_reference" : verdict.kind;
}

function explain(ref: string, verdict: Problem, i: number): string {
  const other = (f: RefField) => formatPath(["findings", i, "evidence", f]);
  switch (verdict.kind) {
    case "misplaced":
      return verdict.belongsIn === "citations"
        ? `misplaced reference: "${ref}" is a citation marker, not a tool-result id. ` +
            (verdict.validThere
              ? `Move it to ${other("citations")}.`
              : `It also did not appear in any of your tool outputs, so it cannot be cited; drop this one reference.`)
        : `misplaced reference: "${ref}" is a tool_use id, not a citation marker. Move it to ${other("toolResults")}.`;
    case "unknown_tool_result":
      return `"${ref}" is not the id of a successful tool call recorded for this executor. Replace it with the tool_use id of the call that supports the claim, or drop this one reference.`;
    case "unseen_citation":
      return `"${ref}" did not appear in any of your tool outputs. Cite only markers your tools returned: replace it with the marker of the passage you read, or drop this one reference.`;
    case "not_a_citation":
      return `"${ref}" is not a citation marker. Citations are markers like [[corpus:<doc_id>#<section>]] copied from a tool output.`;
  }
}
