/**
 * Advice language in an answer: buy/sell recommendations, price targets,
 * ratings and position advice, which a research briefing must not give. A
 * small rule classifier over sentences, each rule named, so a flag says why
 * it fired; its accuracy is measured on a labelled corpus in
 * tests/checker/adviceSentences.json. Describing how buying and selling work
 * ("when you buy or sell ETF shares") or what a sale did is not advice.
 */
const ACTS = "buy|sell|add|hold|trim|reduce|increase|exit|switch|swap|dump|accumulate|allocate|overweight|underweight|short|avoid";

const RULES: [name: string, pattern: RegExp][] = [
  // "Buy the dip.", "Sell half of your holding", "Add ADIV to your portfolio", "Go long ADIV"
  ["imperative", new RegExp(`^(?:${ACTS}|take profits|go (?:long|short)|load up|put your|upgrade|downgrade)\\b(?!-)`, "i")],
  ["imperative", /^(?:consider|start|keep)\s+(?:adding|buying|selling|trimming|reducing|increasing|switching|holding)\b/i],
  ["imperative", new RegExp(`^(?:don't|do not|never)\\s+(?:${ACTS})\\b`, "i")],
  // "You should buy", "Investors should overweight", "You ought to exit"
  ["should act", new RegExp(`\\b(?:you|investors|clients|one|we|i)\\s+(?:should|ought to|must|need to|may want to|might want to)\\s+(?:(?:consider|probably|definitely)\\s+)?(?:${ACTS}|consider|move|put|take|go)\\b`, "i")],
  // "I would trim the position", "We'd sell"
  ["would act", new RegExp(`\\b(?:i|we)(?:'d|\\s+would)\\s+(?:${ACTS})\\b`, "i")],
  // "We recommend selling", "I recommend a 20% position"
  ["recommends", /\b(?:we|i|our analysts?)\s+(?:would\s+)?(?:strongly\s+)?(?:recommend|suggest|advise|urge)\b/i],
  // "Our price target for ADIV is $34", "target price 42 USD", "12-month price objective is 18.50"
  ["price target", /\b(?:price target|target price|price objective)s?\b[^.\d]{0,25}[$€£]?\d/i],
  // "is a strong buy", "We rate the fund a sell", "Rating: Outperform", "Upgrade to overweight"
  ["rating", /\b(?:is|as|a|rate\w*|rating:?|to)\s+(?:a\s+)?(?:strong\s+)?(?:buy|sell|outperform|underperform|overweight|underweight|accumulate)\b(?!-)(?!\s+or\b)/i],
  // "Now is a good time to buy", "The best move is to switch", "It would be wise to dump"
  ["timing", /\b(?:wise|smart|prudent|best(?: move)?|good time|right time|time)\s+(?:is\s+)?to\s+(?:buy|sell|dump|exit|add|switch|hold|trim|get (?:in|out))\b/i],
  // "worth accumulating", "undervalued"
  ["valuation call", /\b(?:worth (?:buying|accumulating|adding|owning|selling)|undervalued|overvalued|cheap at these levels)\b/i],
  // "a 20% position in", "allocate 5% of the portfolio to"
  ["position size", /\b(?:an?\s+\d+(?:\.\d+)?\s?%\s+(?:position|allocation|weight)\s+in)\b/i],
];

/** The name of the rule that makes a sentence advice, or null. */
export function adviceRule(sentence: string): string | null {
  const s = sentence.trim().replace(/^(?:[-*•]\s+|\d+[.)]\s+)/, "");
  for (const [name, pattern] of RULES) if (pattern.test(s)) return name;
  return null;
}

export interface AdviceSentence {
  sentence: string;
  /** Character offset of the sentence in the text. */
  offset: number;
  rule: string;
}

/** Sentences: the text split after . ! ? (and a closing quote or parenthesis after one) followed by whitespace, and at line breaks (bullets, headings). */
export function sentencesOf(text: string): { sentence: string; offset: number }[] {
  const out: { sentence: string; offset: number }[] = [];
  let start = 0;
  const push = (end: number) => {
    const raw = text.slice(start, end);
    const sentence = raw.trim();
    if (sentence) out.push({ sentence, offset: start + raw.indexOf(sentence) });
  };
  for (const m of text.matchAll(/(?<=[.!?]["\u201d\u00bb\u00ab)]?)\s+|\n+/g)) {
    push(m.index!);
    start = m.index! + m[0].length;
  }
  push(text.length);
  return out;
}

/**
 * The sentences of `text` that give advice, with the rule each one met. `spoken`: spans of the text that are a
 * source speaking (a phrase quoted verbatim from a cited source), blanked before the rules read a sentence, so a
 * health agency's quoted "We advise the public …" is not the answer's advice while the answer's own words in the
 * same sentence still are.
 */
export function adviceIn(text: string, spoken: readonly { offset: number; text: string }[] = []): AdviceSentence[] {
  return sentencesOf(text).flatMap(({ sentence, offset }) => {
    let own = sentence;
    for (const span of spoken) {
      const from = Math.max(span.offset, offset) - offset;
      const to = Math.min(span.offset + span.text.length, offset + sentence.length) - offset;
      if (from < to) own = own.slice(0, from) + " ".repeat(to - from) + own.slice(to);
    }
    const rule = adviceRule(own);
    return rule ? [{ sentence, offset, rule }] : [];
  });
}
