/**
 * The numbers a text states, each with the values it may stand for, so that an
 * answer's "1.2k", "1,200" and "1200" match each other, "12%" matches "0.12",
 * and "45 bps" matches "0.45%". Citation markers and bracketed references are
 * not numbers of the text.
 */
export interface StatedNumber {
  /** As written, e.g. "1.2k" or "0.45 %". */
  text: string;
  /** Character offset in the text it was read from. */
  offset: number;
  /** Every value it may stand for (a percentage is both its points and its fraction). */
  values: number[];
  /** Half a unit of the last digit written, in each value's scale: how far a rounded figure may be from its source. */
  tolerances: number[];
}

const SCALES: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  t: 1e12,
  tn: 1e12,
  trillion: 1e12,
};

// A number: digits with optional thousands commas and decimals, then an optional percent, basis points or scale word.
const NUMBER =
  /(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(%|percent\b|per cent\b|bps\b|basis points\b|k\b|thousand\b|mn\b|m\b|million\b|bn\b|b\b|billion\b|tn\b|t\b|trillion\b))?/gi;

/** Page locators: "page 2", "pages 3-4", "pp. 7, 9", "p. 12". */
const PAGES = /\b(?:pages?|pp?\.)\s*\d+(?:\s*(?:[-–,]|and|to)\s*\d+)*/gi;

/**
 * Bracketed spans ([[corpus:x#p12]], [1], [F2]), URLs, hashes and hex ids are references, not figures: blanked so
 * offsets stay.
 */
const REFERENCE = new RegExp(`\\[\\[[^\\]]*\\]\\]|\\[[^\\]]*\\]|\\bhttps?://\\S+|\\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\\d)[0-9a-f]{8,}\\b`, "gi");

/**
 * The text with its page locators blanked (offsets kept): the checker holds a claim's pages against its quotes'
 * pages (pagesNamed), not against the figures of its sources.
 */
export const withoutPageLocators = (text: string): string => text.replace(PAGES, (m) => " ".repeat(m.length));

/** The page numbers a text names in its page locators, ranges spelled out. */
export function pagesNamed(text: string): number[] {
  const pages: number[] = [];
  for (const [locator] of text.matchAll(PAGES)) {
    for (const part of locator.replace(/^\D+/, "").split(/\s*(?:,|and)\s*/)) {
      const [from, to = from] = part.split(/\s*(?:[-–]|to)\s*/).map(Number);
      for (let p = from; p <= to && p - from < 1000; p++) pages.push(p);
    }
  }
  return pages;
}

export function statedNumbers(text: string): StatedNumber[] {
  const plain = text.replace(REFERENCE, (m) => " ".repeat(m.length));
  const found: StatedNumber[] = [];
  for (const m of plain.matchAll(NUMBER)) {
    const written = m[0];
    const digits = written.match(/[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/)![0];
    const base = Number(digits.replace(/,/g, "").replace("−", "-"));
    const decimals = digits.split(".")[1]?.length ?? 0;
    const half = 0.5 * 10 ** -decimals;
    const suffix = m[1]?.toLowerCase().replace(/\s+/g, " ");
    let values: number[];
    let tolerances: number[];
    if (suffix === "%" || suffix === "percent" || suffix === "per cent") {
      values = [base, base / 100];
      tolerances = [half, half / 100];
    } else if (suffix === "bps" || suffix === "basis points") {
      // 45 bps is 0.45 percentage points, or 0.0045.
      values = [base / 100, base / 10_000];
      tolerances = [half / 100, half / 10_000];
    } else if (suffix && SCALES[suffix]) {
      values = [base * SCALES[suffix]];
      tolerances = [half * SCALES[suffix]];
    } else {
      // A bare fraction may be a percentage written as one (0.12 for 12%).
      values = base !== 0 && Math.abs(base) < 1 ? [base, base * 100] : [base];
      tolerances = values.length === 2 ? [half, half * 100] : [half];
    }
    found.push({ text: written.trim(), offset: m.index!, values, tolerances });
  }
  return found;
}

/**
 * Whether a number stated in an answer is found among a source's numbers: some
 * value of each is the same, up to the rounding the answer's own digits allow
 * (an answer's "12.3%" is supported by a source's "12.34%", not by "12.4%").
 */
export function supportedBy(claimed: StatedNumber, source: readonly StatedNumber[]): boolean {
  return source.some((s) =>
    claimed.values.some((v, i) => s.values.some((w) => Math.abs(v - w) <= claimed.tolerances[i] + 1e-12 * Math.max(1, Math.abs(v)))),
  );
}

/** The numbers of `answer` that no source text states. */
export function unsupportedNumbers(answer: string, sources: readonly string[]): StatedNumber[] {
  const known = sources.flatMap(statedNumbers);
  return statedNumbers(answer).filter((n) => !supportedBy(n, known));
}
