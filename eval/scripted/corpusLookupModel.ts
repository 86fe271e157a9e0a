import { ScriptedModel, type ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { handoff, quoteOf, quotedText, squash, use } from "../../scenarios/etfOverlap/scriptedHandoff.ts";
import { exchanges, resultsOf, turnsTaken } from "../../scenarios/requestView.ts";
import { singleAgentPolicy } from "../../scenarios/singleAgentScript.ts";
import type { CorpusLookup } from "../evalCase.ts";

/**
 * The scripted model of a corpus lookup case: Main delegates the question to a
 * web-explorer Child, which fetches the page the case names through the real
 * web_fetch and quotes the sentence holding each phrase, as the fetched text
 * has it; Main answers with one observed claim per finding. Only the choice of
 * page and phrases is scripted; every quote comes from the tool's output, and
 * a phrase the page does not hold becomes a gap, not a claim.
 */
export function corpusLookupModel(question: string, lookup: CorpusLookup): ScriptedModel {
  return new ScriptedModel({ name: "corpus-lookup", policy: corpusLookupPolicy(question, lookup) });
}

/**
 * The same lookup by one scripted agent holding every tool (the eval's
 * single-agent variant): it fetches the page itself, by the Child's script, and
 * answers citing its own findings with them as its evidence
 * (scenarios/singleAgentScript.ts, as each scenario's single agent does).
 */
export function corpusLookupSingleAgentModel(question: string, lookup: CorpusLookup): ScriptedModel {
  return new ScriptedModel({ name: "corpus-lookup-single-agent", policy: singleAgentPolicy(corpusLookupPolicy(question, lookup)) });
}

const corpusLookupPolicy = (question: string, lookup: CorpusLookup) => (request: ModelRequest) =>
  request.tools.some((t) => t.name === "answer") ? mainPolicy(request, question, lookup) : childPolicy(request, lookup);

interface ConsumedHandoff {
  child_executor_id: string;
  handoff: { findings: { claim: string }[]; gaps: string[] };
}

function mainPolicy(request: ModelRequest, question: string, lookup: CorpusLookup): ScriptedReply {
  if (!exchanges(request).some((x) => x.use.name === "delegate")) {
    return use("delegate", {
      profile: "web-explorer",
      question,
      context: `Read ${lookup.url} and quote what it says.`,
      done_when: "Each fact asked for is quoted from the page, or named as a gap.",
      tools: ["web_fetch"],
    });
  }
  const handoffs = resultsOf(request, "delegate").map((r) => JSON.parse(r.output) as ConsumedHandoff);
  const claims = handoffs.flatMap((h) => h.handoff.findings.map((f, i) => ({ text: f.claim, basis: "observed" as const, citations: [{ executor: h.child_executor_id, finding: i }] })));
  const gaps = handoffs.flatMap((h) => h.handoff.gaps);
  return use("answer", {
    summary: `(scripted) What ${lookup.url} says, quoted from one Child's handoff.`,
    sections: [
      {
        heading: "What the page says",
        claims: [...claims, ...gaps.map((g) => ({ text: `Not collected: ${g}`, basis: "not_collected" as const, citations: [] }))],
      },
    ],
  });
}

function childPolicy(request: ModelRequest, lookup: CorpusLookup): ScriptedReply {
  if (turnsTaken(request) === 0) return use("web_fetch", { url: lookup.url });
  const [page] = resultsOf(request, "web_fetch");
  const text = page ? quotedText(page.output) : "";
  const findings = [];
  const gaps = [];
  for (const phrase of lookup.phrases) {
    const sentence = sentenceWith(text, phrase);
    const quotes = page && sentence ? quoteOf(page.id, text, sentence) : [];
    if (sentence && quotes.length) findings.push({ claim: `The page states: "${sentence}"`, evidence: { toolResults: [page!.id], citations: [], quotes }, confidence: "high" });
    else gaps.push(`the page does not say "${phrase}".`);
  }
  return handoff("web-explorer", {
    summary: `What ${lookup.url} says, quoted.`,
    findings,
    basis: { sources: [lookup.url], dates: [], units: [], scope: "one page" },
    gaps,
  });
}

/** The sentence of a page's text holding `phrase`, whitespace squashed. */
function sentenceWith(text: string, phrase: string): string | undefined {
  return text
    .split(/\n\s*\n/)
    .flatMap((paragraph) => squash(paragraph).split(/(?<=[.!?])\s+(?=[A-Z0-9"“])/))
    .find((s) => s.includes(phrase));
}
