import type { GoldCaseLine } from "./goldCase.ts";

/**
 * Text as compared: Unicode compatibility form without diacritics, lowercase,
 * typographic quotes and dashes made plain, punctuation between words dropped
 * (a decimal point or a thousands comma inside a number kept), the articles
 * a/an/the dropped, whitespace squashed.
 */
export function normalizeText(s: string): string {
  return ` ${s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[‘’´`]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[‐-―−]/g, "-")
    .replace(/(?<!\d)[.,](?!\d)|[.,](?=\s|$)|[!?;:"()[\]{}*_|\\/]/g, " ")
    .replace(/'s\b/g, "")
    .replace(/\b(a|an|the)\b/g, " ")
    .replace(/\s+/g, " ")
    .trim()} `;
}

/** The numbers a text states: "1,016,315" is one number, "$35" is 35, "-0.5%" is -0.5. */
export function numbersIn(s: string): number[] {
  return [...s.matchAll(/(?<![\d.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\d.,])-?\d+(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, "")));
}

/** Whether the normalised text holds the normalised phrase as whole words; where it first does (-1 when not). */
const at = (normText: string, phrase: string): number => normText.indexOf(normalizeText(phrase));

export interface Grade {
  correct: boolean;
  /** What was compared, for the table: the number found, or the items found and missing. */
  detail: string;
}

/**
 * An answer graded against a gold answer: a number when the text states one
 * within tolerance of it; a text when the text holds it (normalised, as whole
 * words); a set when it holds every item; a list when it holds every item in
 * the gold order. Pure. Items the answer adds are not counted against it (free
 * text has no item boundaries to find them by); that leniency is documented.
 */
export function gradeAnswer(gold: Pick<GoldCaseLine, "answer" | "answer_type" | "tolerance">, text: string): Grade {
  if (gold.answer_type === "number") {
    const want = gold.answer as number;
    const found = numbersIn(text).find((n) => Math.abs(n - want) <= gold.tolerance + 1e-9);
    return found === undefined ? { correct: false, detail: `no number within ${gold.tolerance} of ${want}` } : { correct: true, detail: `${found}` };
  }
  const norm = normalizeText(text);
  if (gold.answer_type === "text") {
    const ok = at(norm, gold.answer as string) >= 0;
    return { correct: ok, detail: ok ? `holds "${gold.answer}"` : `lacks "${gold.answer}"` };
  }
  const items = gold.answer as string[];
  const positions = items.map((item) => at(norm, item));
  const missing = items.filter((_, i) => positions[i]! < 0);
  if (missing.length) return { correct: false, detail: `lacks ${missing.map((m) => `"${m}"`).join(", ")}` };
  if (gold.answer_type === "list" && positions.some((p, i) => i > 0 && p < positions[i - 1]!)) return { correct: false, detail: "every item, out of order" };
  return { correct: true, detail: `${items.length} items${gold.answer_type === "list" ? " in order" : ""}` };
}
