import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../models/index.ts";
import type { ModelRequest } from "../models/types.ts";
import { markdownTables } from "../tools/demo/markdownTables.ts";
import { citationsIn, exchanges, resultsOf, turnsTaken } from "./requestView.ts";

/**
 * The offline research scenario: a scripted Main and scripted Children that
 * answer the teaching question over the synthetic corpus. Every reply is
 * derived from the request actually received (tool results, handoffs), so the
 * runtime is exercised for real; only the model's judgment is scripted, and
 * every response says so.
 */
export const OFFLINE_QUESTION =
  "I am considering adding the ADIV ETF. Compare its overlap with my portfolio, verify its fees and main risks, and explain when adding it would or would not be appropriate.";

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

// Each delegation names the demo corpus tools it needs: the profiles' own tools are the research tools
// (web, documents, workspace, compute), which the synthetic corpus is not served through.
export const DELEGATIONS = [
  {
    profile: "web-explorer",
    question: "What are ADIV's recurring and one-time fees for the USD Distributing share class, and has any changed recently?",
    context: "The user considers buying ADIV (ACME Global Dividend ETF). Keep effective dates and the source of every figure.",
    done_when: "Recurring and one-time fees are listed with effective dates and sources; any announced change is noted.",
    tools: ["search_corpus", "read_document", "quote_passage"],
  },
  {
    profile: "document-reader",
    question: "Which principal risks does the ADIV prospectus disclose, with page references?",
    context: "Read the prospectus risk pages; quote the exact wording of the main risks.",
    done_when: "The main risks are quoted with page markers and anything not read is named.",
    tools: ["read_document", "quote_passage", "search_corpus"],
  },
  {
    profile: "compute-analyst",
    question: "How much does ADIV's published holdings list overlap with the user's portfolio?",
    context: "The user's portfolio is the document user-portfolio; ADIV's holdings are in adiv-holdings.",
    done_when: "Overlap in percent of portfolio weight, the common holdings, method, as-of dates and limitations.",
    tools: ["read_document", "compute_overlap", "search_corpus", "quote_passage"],
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

/** Web explorer: search, quote the announcement and the factsheet, hand off. */
function feesPolicy(request: ModelRequest): ScriptedReply {
  const step = turnsTaken(request);
  if (step === 0) return use("search_corpus", { query: "ADIV ongoing charge fee effective date" });
  if (step === 1) {
    return {
      content: [
        { type: "text", text: "(scripted) Quoting the fee announcement and the factsheet fee table." },
        { type: "tool_use", name: "quote_passage", input: { doc_id: "adiv-fee-announcement", contains: "reduced from 0.38%" } },
        { type: "tool_use", name: "read_document", input: { doc_id: "adiv-factsheet", section: "fees" } },
      ],
    };
  }
  const [announcement] = resultsOf(request, "quote_passage");
  const [factsheet] = resultsOf(request, "read_document");
  const findings = [];
  // Claims are built from the tool outputs they cite, so every figure in them is one the output shows.
  if (announcement) {
    const quote = JSON.parse(announcement.output) as { passage: string; citation: string };
    findings.push({
      claim: `The fee announcement states: "${squash(quote.passage)}"`,
      evidence: { toolResults: [announcement.id], citations: [quote.citation] },
      confidence: "high",
    });
  }
  const table = factsheet ? feeTable(factsheet.output) : null;
  if (factsheet && table) {
    findings.push({
      claim: `The factsheet fee table (as of ${table.asOf}, before the announced cut) lists: ${table.rows.join("; ")}.`,
      evidence: { toolResults: [factsheet.id], citations: citationsIn(factsheet.output).filter((c) => c.endsWith("#fees]]")) },
      confidence: "medium",
    });
  }
  return handoff("web-explorer", {
    summary: "Fees for ADIV USD Distributing: the announced ongoing-charge cut and the factsheet's fee table, quoted.",
    findings,
    basis: { sources: ["adiv-fee-announcement", "adiv-factsheet"], dates: ["2026-06-30", "2026-08-14", "2026-10-01"], units: ["% per year"], scope: "USD Distributing share class" },
    gaps: ["The broker commission and bid-ask spread an exchange investor pays are named in the factsheet but not quantified in the corpus."],
  });
}

/** The factsheet's fee table as "Charge: amount (notes)" rows, and its as-of date, read from a read_document output. */
function feeTable(output: string): { asOf: string; rows: string[] } | null {
  const table = markdownTables(output).find((t) => t.header[0] === "Charge" && t.header[1] === "Amount");
  const asOf = /^As of: (\S+)$/m.exec(output)?.[1];
  if (!table || !asOf) return null;
  return { asOf, rows: table.rows.map(([charge, amount, notes]) => `${charge}: ${amount}${notes ? ` (${notes})` : ""}`) };
}

const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** Document reader: read the risk pages, quote the main risks with their page markers, hand off. */
function risksPolicy(request: ModelRequest): ScriptedReply {
  const step = turnsTaken(request);
  if (step === 0) return use("read_document", { doc_id: "adiv-prospectus", section: "p17" });
  if (step === 1) {
    return {
      content: [
        { type: "text", text: "(scripted) Quoting the two principal risks named on pages 17 and 18." },
        { type: "tool_use", name: "quote_passage", input: { doc_id: "adiv-prospectus", contains: "Dividend concentration risk" } },
        { type: "tool_use", name: "quote_passage", input: { doc_id: "adiv-prospectus", contains: "Securities lending risk" } },
      ],
    };
  }
  const quotes = resultsOf(request, "quote_passage").map((q) => ({ ...q, quote: JSON.parse(q.output) as Quote }));
  return handoff("document-reader", {
    summary: "Principal risks of ADIV as disclosed on prospectus pages 17-18, quoted with their footnotes.",
    findings: quotes.map((q) => ({
      // A footnote marker is quoted with its note: "(5)" alone would hide who the lending agent is.
      claim: [`The prospectus discloses: "${squash(q.quote.passage)}"`, ...(q.quote.footnotes ?? []).map((f) => `Footnote ${f.marker}: "${squash(f.text.slice(f.marker.length))}"`)].join(" "),
      evidence: { toolResults: [q.id], citations: [...new Set([q.quote.citation, ...(q.quote.footnotes ?? []).map((f) => f.citation)])] },
      confidence: "high" as const,
    })),
    basis: { sources: ["adiv-prospectus"], dates: ["2026-02-01"], units: [], scope: "Principal risk pages 17 and 18 only" },
    gaps: quotes.length < 2 ? ["A principal risk passage could not be quoted."] : ["Prospectus pages other than the principal-risk pages were not read."],
  });
}

interface Quote {
  passage: string;
  citation: string;
  footnotes?: { marker: string; text: string; citation: string }[];
}

/** Compute analyst: compute the overlap from both holdings lists, hand off. */
function overlapPolicy(request: ModelRequest): ScriptedReply {
  if (turnsTaken(request) === 0) return use("compute_overlap", { portfolio_doc: "user-portfolio", etf_doc: "adiv-holdings" });
  const [computed] = resultsOf(request, "compute_overlap");
  if (!computed) return handoff("compute-analyst", { summary: "Overlap not computed.", findings: [], basis: emptyBasis, gaps: ["compute_overlap failed"] });
  const result = JSON.parse(computed.output) as {
    inputs: { etf: { positions: number } };
    result: { overlap_pct: number; common_holdings: { ticker: string }[] };
  };
  return handoff("compute-analyst", {
    summary: `Overlap of ADIV's published holdings (${result.inputs.etf.positions} positions) with the portfolio: ${result.result.overlap_pct}% of portfolio weight.`,
    findings: [
      {
        claim: `ADIV's published holdings list (${result.inputs.etf.positions} positions) overlaps the portfolio by ${result.result.overlap_pct}% of portfolio weight (common: ${result.result.common_holdings.map((h) => h.ticker).join(", ")}).`,
        evidence: { toolResults: [computed.id], citations: citationsIn(computed.output) },
        confidence: "medium",
      },
    ],
    basis: { sources: ["user-portfolio", "adiv-holdings"], dates: ["2026-07-31", "2026-06-30"], units: ["% of portfolio weight"], scope: "ADIV's published holdings only" },
    gaps: ["Only ADIV's largest holdings are published in the corpus, so the true overlap may be higher."],
  });
}

function generalPolicy(request: ModelRequest): ScriptedReply {
  if (turnsTaken(request) === 0) return use("search_corpus", { query: "ADIV" });
  return handoff("general", { summary: "General search done.", findings: [], basis: emptyBasis, gaps: ["The scripted general Child only searches."] });
}

interface Basis {
  sources: string[];
  dates: string[];
  units: string[];
  scope: string;
}

const emptyBasis: Basis = { sources: [], dates: [], units: [], scope: "" };

function use(name: string, input: unknown): ScriptedReply {
  return { content: [{ type: "tool_use", name, input }] };
}

function handoff(
  profile: string,
  h: { summary: string; findings: unknown[]; basis: Basis; gaps: string[] },
): ScriptedReply {
  return use("handoff", {
    summary: `[${profile}] (scripted) ${h.summary}`,
    findings: h.findings,
    measurementBasis: h.basis,
    artifacts: [],
    gaps: h.gaps,
    executionState: h.findings.length ? "completed" : "partial",
    confidence: h.findings.length ? "medium" : "low",
    caveats: ["Produced by a scripted model over a synthetic corpus."],
  });
}

