import type { CheckResult } from "./checkAnswer.ts";

/** A claim as the report names it: its id, section and text from the answer. */
export interface ReportedClaim {
  id: string;
  section: string;
  text: string;
}

const VERDICT: Record<CheckResult["claims"][number]["verdict"], string> = {
  supported: "supported",
  flagged: "**FLAGGED**",
  no_evidence: "no evidence",
};

const STATE: Record<CheckResult["sources"][number]["state"], string> = {
  unchanged: "unchanged",
  still_supports: "changed, still supports",
  no_longer_supports: "**changed, no longer supports**",
  unreachable: "**could not be read again**",
  not_reread: "not read again",
};

// A table cell: one line, no pipe to break the row.
const cell = (s: string) => s.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim() || "-";

/**
 * `check-report.md`: a check_completed event as Markdown, a pure function of the
 * event and the answer's claims, so a bundle's copy is re-derived byte for byte.
 */
export function renderCheckReport(run: { runId: string; checkedAt: string; eventId: string }, check: CheckResult, claims: readonly ReportedClaim[]): string {
  const byId = new Map(claims.map((c) => [c.id, c]));
  const flagged = check.claims.filter((c) => c.verdict === "flagged").length;
  const bare = check.claims.filter((c) => c.verdict === "no_evidence").length;
  const legacy = check.artifacts === undefined;
  const lines = [
    `# Check report: run ${run.runId}`,
    "",
    `Verdict: **${check.verdict}**${check.verdictReason ? ` (${check.verdictReason})` : ""}. ${check.claims.length} claims: ${check.claims.length - flagged - bare} supported, ${flagged} flagged, ${bare} without evidence; ${check.advice.length} advice sentences; ${check.sources.length} sources read again.`,
    "",
    `Checked at ${run.checkedAt} (event ${run.eventId}) against answer event ${check.answerEventId}.`,
    "",
    "## Claims",
    "",
    // A check recorded before flags had kinds (no `artifacts`) keeps the table it was rendered with, so a bundle's copy is re-derived byte for byte.
    ...(legacy
      ? ["| claim | basis | verdict | numbers | not found in its sources | notes |", "| --- | --- | --- | --- | --- | --- |"]
      : ["| claim | basis | verdict | flags | numbers | not found beside its subject | notes |", "| --- | --- | --- | --- | --- | --- | --- |"]),
    ...check.claims.map((c) => {
      const claim = byId.get(c.claimId);
      const label = claim ? `${c.claimId} (${claim.section}): ${claim.text}` : c.claimId;
      const kinds = [...new Set((c.flags ?? []).map((f) => f.kind.replace("_", " ")))];
      return `| ${cell(label)} | ${c.basis} | ${VERDICT[c.verdict]} |${legacy ? "" : ` ${cell(kinds.join(", "))} |`} ${cell(c.numbers.join(", "))} | ${cell(c.unsupportedNumbers.join(", "))} | ${cell(c.notes.join("; "))} |`;
    }),
    "",
    "## The answer's summary and headings",
    "",
    `Numbers: ${check.summary.numbers.join(", ") || "none"}. Not found in any cited source or checked claim: ${check.summary.unsupportedNumbers.join(", ") || "none"}.`,
    "",
    ...(check.summary.unfoundQuotes?.length ? [`Quoted, but in no cited source: ${check.summary.unfoundQuotes.map((q) => JSON.stringify(q)).join(", ")}.`, ""] : []),
    ...(check.artifacts?.length
      ? [
          "## Published artifacts",
          "",
          "| artifact | sha256 | values | verdict | notes |",
          "| --- | --- | --- | --- | --- |",
          ...check.artifacts.map((a) => `| ${cell(a.path)} | ${a.sha256} | ${a.values} | ${VERDICT[a.verdict]} | ${cell(a.notes.join("; "))} |`),
          "",
        ]
      : []),
    "## Advice language",
    "",
    ...(check.advice.length ? check.advice.map((a) => `- ${a.where} (${a.rule}): ${JSON.stringify(a.sentence)}`) : ["None found: no buy/sell recommendation, price target or position advice."]),
    "",
    "## Sources read again",
    "",
    "| # | source | kind | state | recorded raw sha256 | now | read at | detail |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...check.sources.map(
      (s, i) => `| ${i} | ${cell(s.url)} | ${s.kind} | ${STATE[s.state]} | ${s.recordedRawSha256} | ${s.currentRawSha256 ?? "-"} | ${s.rereadAt || "-"} | ${cell(s.detail ?? "")} |`,
    ),
    "",
  ];
  return lines.join("\n");
}
