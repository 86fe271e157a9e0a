/** The morning-briefing scenario's layout (seed 001): sections, files and the question. */
export const BRIEFING_CORPUS = "briefing";
export const BRIEFING_DATE = "30 November 2026";
export const PLAN_FILE = "plan.md";
export const BRIEFING_FILE = "briefing.md";

export interface Section {
  id: "news" | "onchain" | "regulatory";
  title: string;
  file: string;
  query: string;
  /** Page names (briefing.corpus.test/<name>/) this section reads, by prefix. */
  prefixes: readonly string[];
}

export const SECTIONS: readonly Section[] = [
  { id: "news", title: "News", file: "findings/news.md", query: "news upgrade validators outage report stablecoin supply exchange notice delisting", prefixes: ["news-", "exchange-"] },
  { id: "onchain", title: "On-chain", file: "findings/onchain.md", query: "on-chain metrics active addresses transactions fees exchange flow", prefixes: ["onchain-"] },
  { id: "regulatory", title: "Regulatory", file: "findings/regulatory.md", query: "regulatory guidelines rules regulators supervisors circular", prefixes: ["reg-"] },
];

export const MORNING_BRIEFING_QUESTION =
  `Prepare the crypto-market morning briefing for ${BRIEFING_DATE}: project news and exchange notices, on-chain metrics, and regulatory updates, ` +
  `each finding with its source, as ${BRIEFING_FILE}. Research and summarise only: no trade recommendations, price targets or position advice.`;
