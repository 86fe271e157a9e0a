import { classifyArtifact, classifyReference, type RefField, type RefVerdict } from "./classifyReference.ts";
import type { HandoffFacts } from "./handoffFacts.ts";
import { Confidence, ExecutionState, SUMMARY_MAX, type Finding, type Handoff, type Quote } from "./handoffSchema.ts";
import { locateQuote } from "./locateQuote.ts";
import { asArray, asRecord, formatPath, strings } from "./rawShape.ts";
import { rawQuote } from "./reviewQuotes.ts";

/**
 * The best valid handoff that can be built from a rejected candidate: valid
 * findings and references kept, misplaced references moved when they are valid
 * in the other field, everything else dropped with a caveat saying what and why.
 * Whatever it returns passes validateHandoff against the same facts.
 */
export function salvageHandoff(candidate: unknown, facts: HandoffFacts): Handoff {
  const root = asRecord(candidate);
  const notes: string[] = [];
  // Material the Child submitted that did not survive; a "completed" claim no longer holds then.
  let lost = false;
  const drop = (note: string) => {
    lost = true;
    notes.push(note);
  };
  const confidenceOr = (raw: unknown, at: string): Confidence => {
    const parsed = Confidence.safeParse(raw);
    if (parsed.success) return parsed.data;
    notes.push(`${at} was not high, medium or low; set to low`);
    return "low";
  };

  const findings: Finding[] = [];
  asArray(root.findings).forEach((f, i) => {
    const finding = asRecord(f);
    const claim = typeof finding.claim === "string" ? finding.claim.trim() : "";
    if (claim === "") return drop(`${formatPath(["findings", i])} dropped: it had no claim`);

    const evidence = asRecord(finding.evidence);
    const own: Record<RefField, string[]> = { toolResults: [], citations: [] };
    const moved: Record<RefField, string[]> = { toolResults: [], citations: [] };
    let submitted = 0;
    for (const field of ["toolResults", "citations"] as const) {
      const at = formatPath(["findings", i, "evidence", field]);
      for (const ref of strings(evidence[field], true)) {
        submitted++;
        const verdict = classifyReference(ref, field, facts);
        if (verdict.kind === "valid") own[field].push(ref);
        else if (verdict.kind === "misplaced" && verdict.validThere) {
          moved[verdict.belongsIn].push(ref);
          notes.push(`"${ref}" moved from ${at} to ${verdict.belongsIn}`);
        } else drop(`"${ref}" dropped from ${at}: ${dropReason(verdict)}`);
      }
    }
    const quotes: Quote[] = [];
    asArray(evidence.quotes).forEach((raw, j) => {
      submitted++;
      const quote = rawQuote(raw);
      const found = quote ? locateQuote(quote, facts) : null;
      if (quote && found?.kind === "located") quotes.push({ ...quote, ...(found.page === undefined ? {} : { page: found.page }), source: found.source });
      else drop(`${formatPath(["findings", i, "evidence", "quotes", j])} dropped: ${found ? `its text was not found in what tool call ${quote!.toolUseId} read (${found.kind})` : "it had no toolUseId or text"}`);
    });
    const toolResults = [...new Set([...own.toolResults, ...moved.toolResults])];
    const citations = [...new Set([...own.citations, ...moved.citations])];
    let confidence = confidenceOr(finding.confidence, formatPath(["findings", i, "confidence"]));
    if (submitted > 0 && toolResults.length + citations.length + quotes.length === 0 && confidence !== "low") {
      confidence = "low";
      notes.push(`${formatPath(["findings", i])} lost all its evidence, so its confidence was lowered to low`);
    }
    findings.push({ claim, evidence: { toolResults, citations, ...(quotes.length ? { quotes } : {}) }, confidence });
  });

  const artifacts: Handoff["artifacts"] = [];
  asArray(root.artifacts).forEach((a, k) => {
    const art = asRecord(a);
    if (typeof art.id !== "string" || art.id === "") return drop(`${formatPath(["artifacts", k])} dropped: it had no id`);
    const verdict = classifyArtifact({ id: art.id, path: art.path, sha256: art.sha256 }, facts);
    if (verdict.kind === "unproduced") return drop(`artifact "${art.id}" dropped: no tool call of this executor produced it`);
    if (verdict.kind === "mismatch") notes.push(`artifact "${art.id}" path and sha256 replaced by the recorded values`);
    if (!artifacts.some((x) => x.id === art.id)) artifacts.push({ id: art.id, ...facts.artifacts.get(art.id)! });
  });

  let summary = typeof root.summary === "string" ? root.summary : "";
  if (summary.length > SUMMARY_MAX) {
    summary = `${summary.slice(0, SUMMARY_MAX - 1)}…`;
    drop(`summary cut to ${SUMMARY_MAX} characters`);
  }
  if (summary.trim() === "") summary = "The submitted handoff had no usable summary; see findings and gaps.";

  const basis = asRecord(root.measurementBasis);
  if (typeof root.measurementBasis !== "object" || root.measurementBasis === null) {
    notes.push("measurementBasis was missing; its scope is recorded as not stated");
  }

  let state = ExecutionState.safeParse(root.executionState).data;
  if (!state) {
    notes.push(`executionState was not one of ${ExecutionState.options.join(", ")}; set to partial`);
    state = "partial";
  } else if (state === "completed" && lost) {
    notes.push("executionState lowered from completed to partial");
    state = "partial";
  }

  return {
    summary,
    findings,
    measurementBasis: {
      sources: strings(basis.sources),
      dates: strings(basis.dates),
      units: strings(basis.units),
      scope: typeof basis.scope === "string" && basis.scope.trim() !== "" ? basis.scope : "not stated",
    },
    artifacts,
    gaps: strings(root.gaps),
    executionState: state,
    confidence: confidenceOr(root.confidence, "confidence"),
    caveats: [...strings(root.caveats), ...notes.map((n) => `Salvaged from a rejected handoff: ${n}.`)],
  };
}

function dropReason(verdict: Exclude<RefVerdict, { kind: "valid" }>): string {
  switch (verdict.kind) {
    case "misplaced":
      return "a citation marker in toolResults that never appeared in a tool output";
    case "unknown_tool_result":
      return "no successful tool call with that id is recorded for this executor";
    case "unseen_citation":
      return "the marker never appeared in this executor's tool outputs";
    case "not_a_citation":
      return "not a citation marker";
  }
}
