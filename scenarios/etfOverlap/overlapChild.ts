import { readFileSync } from "node:fs";
import type { ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import type { ComputeReport } from "../../tools/compute/runCompute.ts";
import { exchanges, turnsTaken } from "../requestView.ts";
import { HOLDINGS_CSV_URL, PORTFOLIO_CSV_URL } from "./corpusUrls.ts";
import { emptyBasis, handoff, use } from "./scriptedHandoff.ts";

const RESULT_FILE = "overlap.json";
let program: string | undefined;
const overlapProgram = () => (program ??= readFileSync(new URL("./overlap.py", import.meta.url), "utf8"));

interface Overlap {
  overlap_pct: number;
  common: string[];
  etf_positions: number;
  etf_listed_weight_pct: number;
}

/** Compute analyst: fetch both holdings files (stored as blobs), compute the overlap in the sandbox over them, hand off. */
export function overlapPolicy(request: ModelRequest): ScriptedReply {
  const step = turnsTaken(request);
  if (step === 0) {
    return {
      content: [
        { type: "text", text: "(scripted) Fetching the portfolio export and ADIV's holdings file." },
        { type: "tool_use", name: "web_fetch", input: { url: PORTFOLIO_CSV_URL } },
        { type: "tool_use", name: "web_fetch", input: { url: HOLDINGS_CSV_URL } },
      ],
    };
  }
  const portfolio = stored(request, PORTFOLIO_CSV_URL);
  const etf = stored(request, HOLDINGS_CSV_URL);
  if (!portfolio || !etf) return failed("A holdings file could not be fetched, so the overlap was not computed.");
  const computed = exchanges(request).find((x) => x.use.name === "compute");
  if (!computed) {
    return use("compute", {
      language: "python",
      code: overlapProgram(),
      inputs: [
        { sha256: portfolio.sha256, name: "portfolio.csv" },
        { sha256: etf.sha256, name: "etf.csv" },
      ],
    });
  }
  const report = computed.result && !computed.result.is_error ? (JSON.parse(computed.result.content) as ComputeReport) : null;
  const written = report?.files_written.find((f) => f.path === RESULT_FILE);
  const line = report?.status === "ok" ? report.stdout.trim().split("\n").at(-1) : undefined;
  if (!report || !written || !line) return failed(`compute did not produce ${RESULT_FILE}: ${(computed.result?.content ?? "no result").slice(0, 400)}`);
  const result = JSON.parse(line) as Overlap;
  return handoff("compute-analyst", {
    summary: `Overlap of ADIV's published holdings (${result.etf_positions} positions) with the portfolio: ${result.overlap_pct}% of portfolio weight.`,
    findings: [
      {
        // Every number is one the compute run printed; the fetches hold the input bytes it read.
        claim: `ADIV's published holdings list (${result.etf_positions} positions) overlaps the portfolio by ${result.overlap_pct}% of portfolio weight (common: ${result.common.join(", ")}).`,
        // The printed line, as the call's stdout (a stored blob) has it.
        evidence: { toolResults: [computed.use.id, portfolio.id, etf.id], citations: [], quotes: [{ toolUseId: computed.use.id, text: line }] },
        confidence: "medium",
      },
    ],
    basis: {
      sources: [
        `${PORTFOLIO_CSV_URL} (stored blob sha256 ${portfolio.sha256})`,
        `${HOLDINGS_CSV_URL} (stored blob sha256 ${etf.sha256})`,
        `program: scenarios/etfOverlap/overlap.py, code sha256 ${report.record.code_sha256}`,
      ],
      dates: ["2026-07-31", "2026-06-30"],
      units: ["% of portfolio weight"],
      scope: "ADIV's published top-10 holdings only",
    },
    artifacts: [{ id: written.artifact_id, path: written.path, sha256: written.sha256 }],
    gaps: ["Only ADIV's largest holdings are published in the corpus, so the true overlap may be higher."],
  });
}

/** A fetched CSV's tool use id and the sha256 of its stored bytes, as web_fetch printed it. */
function stored(request: ModelRequest, url: string): { id: string; sha256: string } | undefined {
  const x = exchanges(request).find((e) => e.use.name === "web_fetch" && (e.use.input as { url: string }).url === url);
  const sha256 = x?.result && !x.result.is_error ? /stored as blob sha256 ([0-9a-f]{64})/.exec(x.result.content)?.[1] : undefined;
  return x && sha256 ? { id: x.use.id, sha256 } : undefined;
}

const failed = (gap: string) => handoff("compute-analyst", { summary: "Overlap not computed.", findings: [], basis: emptyBasis, gaps: [gap] });
