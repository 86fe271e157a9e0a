import type { HandoffView } from "./runView.ts";

/**
 * A Child's handoff as text, whole: what it found and the evidence, and also
 * what decides whether that can be used (basis, artifacts, gaps, state, confidence).
 */
export function renderHandoff(h: HandoffView, name = `child:${h.profile}`): string[] {
  const list = (items: readonly string[]) => (items.length ? items.map((i) => `    - ${i}`) : ["    none"]);
  const b = h.measurementBasis;
  return [
    `handoff of ${name} (${h.executorId}): ${h.executionState}, confidence ${h.confidence}${h.forced ? ", forced partial" : ""}${h.consumed || name === "main" ? "" : ", not consumed by its parent"}`,
    `  summary: ${h.summary}`,
    "  findings:",
    ...(h.findings.length
      ? h.findings.flatMap((f, i) => [
          `    ${i}. [${f.confidence}] ${f.claim}`,
          `       evidence: ${[...f.evidence.citations, ...f.evidence.toolResults.map((t) => `tool result ${t}`)].join(", ") || "none"}`,
          ...(f.evidence.quotes ?? []).map(
            (q) => `       quote of ${q.toolUseId}${q.page ? `, page ${q.page}` : ""}${q.source ? ` (blob ${q.source.sha256.slice(0, 12)}…, chars ${q.source.charStart}-${q.source.charEnd})` : ""}: ${JSON.stringify(q.text)}`,
          ),
        ])
      : ["    none"]),
    "  measurement basis:",
    `    sources: ${b.sources.join(", ") || "none"}`,
    `    dates: ${b.dates.join(", ") || "none"}`,
    `    units: ${b.units.join(", ") || "none"}`,
    `    scope: ${b.scope || "not stated"}`,
    "  artifacts:",
    ...list(h.artifacts.map((a) => `${a.id} ${a.path} sha256 ${a.sha256}`)),
    "  gaps:",
    ...list(h.gaps),
    "  caveats:",
    ...list(h.caveats),
  ];
}
