import type { ScriptedReply } from "../scriptedModel.ts";
import type { ModelRequest } from "../types.ts";
import { exchanges, resultsOf } from "../requestView.ts";
import { use } from "../scriptedReplies.ts";
import { facetsOf, urlsIn } from "./questionTerms.ts";

/** Labels every answer of the baseline researcher, so it never reads as a model's. */
export const BASELINE_LABEL = "(scripted baseline researcher)";

interface ConsumedHandoff {
  child_executor_id: string;
  handoff: { findings: { claim: string; evidence?: { quotes?: unknown[] } }[]; gaps: string[] };
}

const quoted = (f: { evidence?: { quotes?: unknown[] } }) => (f.evidence?.quotes?.length ?? 0) > 0;

/** Main's question: its first user message (actors/prompts.ts renderQuestion). */
function mainQuestion(request: ModelRequest): string {
  const first = request.messages.find((m) => m.role === "user");
  return typeof first?.content === "string" ? first.content : (first?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");
}

/**
 * Main of the baseline researcher: one web-explorer Child per facet of the
 * question, all at once; then an answer built from their handoffs alone, one
 * observed claim per finding (citing it), each gap a not_collected claim, and
 * a summary that states the finding holding most of the question's terms.
 */
export function mainPolicy(request: ModelRequest): ScriptedReply {
  const question = mainQuestion(request);
  if (!exchanges(request).some((x) => x.use.name === "delegate")) {
    const urls = urlsIn(question);
    return {
      content: facetsOf(question).map((facet) => ({
        type: "tool_use" as const,
        name: "delegate",
        input: {
          profile: "web-explorer",
          question: facet,
          context: `Part of the question: "${question}". Search for it, read the best results and quote what they say.${urls.length ? ` Pages the question names: ${urls.join(" ")}` : ""}`,
          done_when: "The sentences or table rows that answer it are quoted verbatim from pages read, or the gap is named.",
        },
      })),
    };
  }
  const asked = new Map(exchanges(request).filter((x) => x.use.name === "delegate").map((x) => [x.use.id, String((x.use.input as { question?: string }).question ?? "")]));
  const handoffs = resultsOf(request, "delegate").map((r) => ({ facet: asked.get(r.id) ?? question, ...(JSON.parse(r.output) as ConsumedHandoff) }));
  const sections = handoffs.map((h) => {
    const claims = [
      // Only a quoted finding is observed: what a Child gathered without quoting (a stop before its handoff) is not evidence.
      ...h.handoff.findings.flatMap((f, i) => (quoted(f) ? [{ text: f.claim, basis: "observed" as const, citations: [{ executor: h.child_executor_id, finding: i }] }] : [])),
      ...h.handoff.gaps.map((g) => ({ text: `Not collected: ${g}`, basis: "not_collected" as const, citations: [] })),
    ];
    return { heading: h.facet.slice(0, 200), claims: claims.length ? claims : [{ text: "Not collected: the Child handed back no finding.", basis: "not_collected" as const, citations: [] }] };
  });
  if (sections.length === 0) sections.push({ heading: question.slice(0, 200), claims: [{ text: "Not collected: no Child handed back.", basis: "not_collected" as const, citations: [] }] });
  // The summary states, for each facet, the Child's best finding (a Child hands its findings back best first).
  const best = handoffs.flatMap((h) => h.handoff.findings.filter(quoted).slice(0, 1).map((f) => f.claim));
  const summary = best.length ? `${BASELINE_LABEL} ${best.join(" ")}` : `${BASELINE_LABEL} The pages searched and read did not state an answer.`;
  return use("answer", { summary: summary.slice(0, 2000), sections });
}
