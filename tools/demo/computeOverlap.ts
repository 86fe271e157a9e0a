import { ToolError } from "../toolErrors.ts";
import { citationMarker, type CorpusDocument } from "./corpusDocument.ts";
import { markdownTables } from "./markdownTables.ts";

export interface Holding {
  ticker: string;
  name: string;
  type: string | null;
  weightPct: number;
}

export interface HoldingsList {
  docId: string;
  section: string;
  asOf: string | null;
  holdings: Holding[];
}

/** The first table with "Ticker" and "Weight (%)" columns is the document's holdings list. */
export function readHoldings(doc: CorpusDocument): HoldingsList | null {
  for (const section of doc.sections) {
    for (const table of markdownTables(section.text)) {
      const col = (name: string) => table.header.findIndex((h) => h.toLowerCase() === name);
      const [ticker, name, type, weight] = [col("ticker"), col("name"), col("type"), col("weight (%)")];
      if (ticker < 0 || weight < 0) continue;
      const holdings = table.rows.map((row, i) => {
        const weightPct = Number(row[weight]);
        if (!Number.isFinite(weightPct)) {
          throw new ToolError(`Document "${doc.id}" section "${section.id}" row ${i + 1}: weight "${row[weight]}" is not a number.`);
        }
        return { ticker: row[ticker] ?? "", name: name >= 0 ? (row[name] ?? "") : "", type: type >= 0 ? (row[type] ?? null) : null, weightPct };
      });
      return { docId: doc.id, section: section.id, asOf: doc.asOf, holdings };
    }
  }
  return null;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const sum = (xs: readonly number[]) => round2(xs.reduce((a, b) => a + b, 0));

/**
 * Weight overlap: for each ticker in both lists, the smaller of its two weights,
 * summed. Deterministic and stated with its inputs and limits, because a bare
 * number would hide that it only sees the listed holdings.
 */
export type OverlapReport = ReturnType<typeof computeOverlap>;

export function computeOverlap(portfolio: HoldingsList, etf: HoldingsList) {
  const etfByTicker = new Map(etf.holdings.map((h) => [h.ticker, h]));
  const common = portfolio.holdings
    .filter((p) => etfByTicker.has(p.ticker))
    .map((p) => {
      const e = etfByTicker.get(p.ticker)!;
      return {
        ticker: p.ticker,
        name: p.name || e.name,
        portfolio_weight_pct: p.weightPct,
        etf_weight_pct: e.weightPct,
        overlap_pct: round2(Math.min(p.weightPct, e.weightPct)),
      };
    });

  const describe = (l: HoldingsList) => ({
    doc_id: l.docId,
    section: l.section,
    as_of: l.asOf,
    positions: l.holdings.length,
    total_weight_pct: sum(l.holdings.map((h) => h.weightPct)),
    citation: citationMarker(l.docId, l.section),
  });
  const inputs = { portfolio: describe(portfolio), etf: describe(etf) };

  const limitations: string[] = [];
  if (inputs.etf.total_weight_pct < 99.5) {
    limitations.push(
      `The ETF list covers ${inputs.etf.total_weight_pct}% of the ETF's weight; holdings outside it are not counted, so the overlap is a lower bound.`,
    );
  }
  if (inputs.portfolio.total_weight_pct < 99.5) {
    limitations.push(`The portfolio list covers ${inputs.portfolio.total_weight_pct}% of the portfolio's weight.`);
  }
  if (portfolio.asOf !== etf.asOf) {
    limitations.push(`As-of dates differ: portfolio ${portfolio.asOf ?? "not stated"}, ETF ${etf.asOf ?? "not stated"}; weights were not re-aligned.`);
  }
  const funds = portfolio.holdings.filter((h) => h.type?.toLowerCase() === "fund");
  if (funds.length) {
    limitations.push(
      `Fund positions are not looked through (${funds.map((f) => `${f.ticker} ${f.weightPct}%`).join(", ")}); any overlap inside them is not counted.`,
    );
  }

  return {
    inputs,
    method:
      "Overlap = sum over tickers present in both lists of min(portfolio weight, ETF weight). Tickers matched exactly; weights as stated in each document; rounded to 2 decimals.",
    result: {
      overlap_pct: sum(common.map((c) => c.overlap_pct)),
      common_holdings: common,
      portfolio_weight_in_common_pct: sum(common.map((c) => c.portfolio_weight_pct)),
      etf_weight_in_common_pct: sum(common.map((c) => c.etf_weight_pct)),
    },
    units: "percent; portfolio weights are of the portfolio's market value, ETF weights of the ETF's net assets",
    limitations,
  };
}
