import type { ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import { markdownTables } from "../../tools/demo/markdownTables.ts";
import { exchanges, resultsOf, turnsTaken } from "../requestView.ts";
import { FACTSHEET_URL, FEE_ANNOUNCEMENT_URL } from "./corpusUrls.ts";
import { handoff, quoteOf, quotedText, squash, use } from "./scriptedHandoff.ts";

/** Web explorer: search the fund's pages, fetch the fee announcement and the factsheet it found, quote them, hand off. */
export function feesPolicy(request: ModelRequest): ScriptedReply {
  const step = turnsTaken(request);
  if (step === 0) return use("web_search", { query: "ADIV ongoing charge fee announcement factsheet" });
  if (step === 1) {
    // Only URLs the search showed are fetched (the runtime refuses any other).
    const [search] = resultsOf(request, "web_search");
    const found = [FEE_ANNOUNCEMENT_URL, FACTSHEET_URL].filter((url) => search?.output.includes(url));
    if (found.length === 0) return feesHandoff([], ["The search found neither the fee announcement nor the factsheet."]);
    return {
      content: [
        { type: "text", text: "(scripted) Fetching the fee announcement and the factsheet the search found." },
        ...found.map((url) => ({ type: "tool_use" as const, name: "web_fetch", input: { url } })),
      ],
    };
  }
  const fetched = (url: string) => {
    const x = exchanges(request).find((e) => e.use.name === "web_fetch" && (e.use.input as { url: string }).url === url);
    return x?.result && !x.result.is_error ? { id: x.use.id, output: x.result.content } : undefined;
  };
  const announcement = fetched(FEE_ANNOUNCEMENT_URL);
  const factsheet = fetched(FACTSHEET_URL);
  const findings = [];
  // Claims are built from the page text they cite, so every figure in them is one the output shows.
  const cut = announcement && sentenceWith(quotedText(announcement.output), "reduced from 0.38%");
  if (announcement && cut) {
    findings.push({
      claim: `The fee announcement states: "${cut}"`,
      evidence: { toolResults: [announcement.id], citations: [], quotes: quoteOf(announcement.id, quotedText(announcement.output), cut) },
      confidence: "high",
    });
  }
  const table = factsheet ? feeTable(factsheet.output) : null;
  if (factsheet && table) {
    findings.push({
      claim: `The factsheet fee table (as of ${table.asOf}, before the announced cut) lists: ${table.rows.join("; ")}.`,
      // Each row quoted as the page's Markdown table has it.
      evidence: { toolResults: [factsheet.id], citations: [], quotes: table.cells.flatMap((cells) => quoteOf(factsheet.id, quotedText(factsheet.output), cells.join(" | "))) },
      confidence: "medium",
    });
  }
  const gaps = ["The broker commission and bid-ask spread an exchange investor pays are named in the factsheet but not quantified in the corpus."];
  return feesHandoff(findings, findings.length === 2 ? gaps : [...gaps, "The fee announcement or the factsheet could not be read."]);
}

function feesHandoff(findings: unknown[], gaps: string[]): ScriptedReply {
  return handoff("web-explorer", {
    summary: "Fees for ADIV USD Distributing: the announced ongoing-charge cut and the factsheet's fee table, from the fetched pages.",
    findings,
    basis: { sources: [FEE_ANNOUNCEMENT_URL, FACTSHEET_URL], dates: ["2026-06-30", "2026-08-14", "2026-10-01"], units: ["% per year"], scope: "USD Distributing share class" },
    gaps,
  });
}

/** The sentence of a page's text that contains `phrase`, whitespace squashed (paragraphs first: a table follows a sentence). */
function sentenceWith(text: string, phrase: string): string | undefined {
  return text
    .split(/\n\s*\n/)
    .flatMap((paragraph) => squash(paragraph).split(/(?<=\.)\s+(?=[A-Z])/))
    .find((s) => s.includes(phrase));
}

/** The factsheet's fee table as "Charge: amount (notes)" rows, and its as-of date, read from a fetched page. */
function feeTable(output: string): { asOf: string; rows: string[]; cells: string[][] } | null {
  const table = markdownTables(output).find((t) => t.header[0] === "Charge" && t.header[1] === "Amount");
  const asOf = /^As of: (\S+)$/m.exec(output)?.[1];
  if (!table || !asOf) return null;
  return { asOf, rows: table.rows.map(([charge, amount, notes]) => `${charge}: ${amount}${notes ? ` (${notes})` : ""}`), cells: table.rows };
}
