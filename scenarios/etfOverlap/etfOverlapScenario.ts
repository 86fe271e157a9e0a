import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { exchanges, resultsOf, turnsTaken } from "../requestView.ts";
import { HOLDINGS_CSV_URL, PORTFOLIO_CSV_URL, PROSPECTUS_URL } from "./corpusUrls.ts";
import { feesPolicy } from "./feesChild.ts";
import { overlapPolicy } from "./overlapChild.ts";
import { risksPolicy } from "./risksChild.ts";
import { emptyBasis, handoff, use } from "./scriptedHandoff.ts";

/**
 * The etf-overlap scenario (the offline demo): a scripted Main and scripted
 * Children that answer the teaching question over the pages and files of
 * scenarios/corpora/etf, fetched and read through the real web_search,
 * web_fetch, document_read and compute tools. Every reply is derived from the
 * request actually received (tool results, handoffs), so the runtime is
 * exercised for real; only the model's judgment is scripted, and every
 * response says so.
 */
export const OFFLINE_QUESTION =
  `I am considering adding the ADIV ETF. Compare its overlap with my portfolio (exported at ${PORTFOLIO_CSV_URL}), verify its fees and main risks, and explain when adding it would or would not be appropriate.`;

export function offlineResearchModel(options: { latencyMs?: number } = {}): ScriptedModel {
  return new ScriptedModel({ name: "offline-research", policy: offlineResearchPolicy, latencyMs: options.latencyMs });
}

export const offlineResearchPolicy: ScriptPolicy = (request) => {
  if (request.tools.some((t) => t.name === "answer")) return mainPolicy(request);
  const method = /# (Web explorer|Document reader|Compute analyst)/.exec(request.system)?.[1];
  if (method === "Web explorer") return feesPolicy(request);
  if (method === "Document reader") return risksPolicy(request);
  if (method === "Compute analyst") return overlapPolicy(request);
  return generalPolicy(request);
};

// The web explorer works with its profile's tools (web_search, web_fetch, document_read); the other two
// fetch the files their task names, so their delegations ask for web_fetch beside what their profile asks.
export const DELEGATIONS = [
  {
    profile: "web-explorer",
    question: "What are ADIV's recurring and one-time fees for the USD Distributing share class, and has any changed recently?",
    context: "The user considers buying ADIV (ACME Global Dividend ETF). Search the fund's pages; keep effective dates and the source of every figure.",
    done_when: "Recurring and one-time fees are listed with effective dates and sources; any announced change is noted.",
  },
  {
    profile: "document-reader",
    question: "Which principal risks does the ADIV prospectus disclose, with page references?",
    context: `The prospectus excerpt is the PDF at ${PROSPECTUS_URL}; its principal risks are on pages 2 and 3. Quote the exact wording of the main risks.`,
    done_when: "The main risks are quoted with their pages and anything not read is named.",
    tools: ["web_fetch", "document_read"],
  },
  {
    profile: "compute-analyst",
    question: "How much does ADIV's published holdings list overlap with the user's portfolio?",
    context: `The user's portfolio export is ${PORTFOLIO_CSV_URL}; ADIV's published holdings are ${HOLDINGS_CSV_URL} (both CSV: ticker, name, type or sector, weight_pct).`,
    done_when: "Overlap in percent of portfolio weight, the common holdings, method, as-of dates and limitations.",
    tools: ["web_fetch", "compute"],
  },
] as const;

function mainPolicy(request: ModelRequest): ScriptedReply {
  const handoffs = resultsOf(request, "delegate").map((r) => JSON.parse(r.output) as ConsumedHandoff);
  const delegated = exchanges(request).filter((x) => x.use.name === "delegate").length;
  if (delegated === 0) {
    return {
      content: [
        { type: "text", text: "(scripted) Three independent local questions: fees, risks, overlap. Delegating them in parallel." },
        ...DELEGATIONS.map((d) => ({ type: "tool_use" as const, name: "delegate", input: { ...d } })),
      ],
    };
  }
  const section = (heading: string, h: ConsumedHandoff | undefined) => ({
    heading,
    claims: h?.handoff.findings.length
      ? h.handoff.findings.map((f, i) => ({
          text: f.claim,
          basis: "observed" as const,
          citations: [{ executor: h.child_executor_id, finding: i }],
        }))
      : [{ text: `${heading}: no usable finding was handed back.`, basis: "not_collected" as const, citations: [] }],
  });
  const [fees, risks, overlap] = DELEGATIONS.map((d) => handoffs.find((h) => h.handoff.summary.startsWith(`[${d.profile}]`)));
  const gaps = handoffs.flatMap((h) => h.handoff.gaps);
  const affiliate = risks?.handoff.findings.findIndex((f) => f.claim.includes("affiliate")) ?? -1;
  return {
    content: [
      {
        type: "tool_use",
        name: "answer",
        input: {
          summary:
            `(scripted) ADIV's fees, main risks and overlap with the portfolio, from ${fromHandoffs(handoffs.length, delegated)}; whether to add it depends on goals stated below.`,
          sections: [
            section("Fees", fees),
            section("Main risks", risks),
            section("Overlap with your portfolio", overlap),
            {
              heading: "When adding ADIV would or would not fit",
              claims: [
                {
                  text: "Adding ADIV fits if you want more dividend-paying global equity and accept its concentration risks; it fits less if the overlap already gives you that exposure.",
                  basis: "judgment",
                  citations: [],
                },
                ...(risks && affiliate >= 0
                  ? [
                      {
                        text: "The securities lending agent is an affiliate of the fund's manager, a conflict of interest: the manager's group earns part of the lending revenue it negotiates for the fund.",
                        basis: "judgment" as const,
                        citations: [{ executor: risks.child_executor_id, finding: affiliate }],
                      },
                    ]
                  : []),
                ...(gaps.length
                  ? [{ text: `Not collected: ${gaps.map((g) => g.replace(/\.$/, "")).join("; ")}.`, basis: "not_collected" as const, citations: [] }]
                  : []),
              ],
            },
          ],
        },
      },
    ],
  };
}

const COUNT = ["no", "one", "two", "three", "four", "five"];
const count = (n: number) => COUNT[n] ?? String(n);

/** Says how many Children's handoffs the answer rests on, and how many delegations returned none (cancelled, failed). */
function fromHandoffs(received: number, delegated: number): string {
  const base = `${count(received)} ${received === 1 ? "Child's handoff" : "Children's handoffs"}`;
  const missing = delegated - received;
  return missing > 0 ? `${base}; ${count(missing)} ${missing === 1 ? "delegation" : "delegations"} returned none` : base;
}

interface ConsumedHandoff {
  child_executor_id: string;
  handoff: { summary: string; findings: { claim: string }[]; gaps: string[] };
}

function generalPolicy(request: ModelRequest): ScriptedReply {
  if (turnsTaken(request) === 0) return use("search_corpus", { query: "ADIV" });
  return handoff("general", { summary: "General search done.", findings: [], basis: emptyBasis, gaps: ["The scripted general Child only searches."] });
}
