import type { StatedNumber } from "./numbers.ts";

/** A figure of a claim computed from cited ones, with the formula that gives it. */
export interface Derivation {
  number: string;
  formula: string;
}

const fmt = (n: StatedNumber) => n.text;

/**
 * A derivation of `claimed` from two of `operands` (numbers the claim's cited texts state): their
 * difference, sum, ratio or percentage change, compared as absolute values (a "cut of 9 bps" is
 * 0.38% − 0.29%), up to the rounding the claimed figure's own digits allow; null when none gives it.
 * Operands are each read in every form they may stand for (a percentage as points and as a fraction).
 */
export function deriveFigure(claimed: StatedNumber, operands: readonly StatedNumber[]): Derivation | null {
  const near = (x: number) =>
    Number.isFinite(x) && claimed.values.some((v, i) => Math.abs(Math.abs(v) - Math.abs(x)) <= claimed.tolerances[i] + 1e-12 * Math.max(1, Math.abs(v)));
  for (let i = 0; i < operands.length; i++) {
    for (let j = 0; j < operands.length; j++) {
      const a = operands[i];
      const b = operands[j];
      if (i === j || a.text === claimed.text || b.text === claimed.text) continue;
      // Operands read in the same form (both as written, or both as fractions), never one of each.
      for (let k = 0; k < Math.min(a.values.length, b.values.length); k++) {
        const x = a.values[k];
        const y = b.values[k];
        if (i < j && near(x - y)) return { number: claimed.text, formula: `${claimed.text} = ${fmt(a)} − ${fmt(b)}` };
        if (i < j && near(x + y)) return { number: claimed.text, formula: `${claimed.text} = ${fmt(a)} + ${fmt(b)}` };
        if (y !== 0 && near(x / y)) return { number: claimed.text, formula: `${claimed.text} = ${fmt(a)} / ${fmt(b)}` };
      }
      const [x, y] = [a.values[0], b.values[0]];
      if (x !== 0 && near(((y - x) / x) * 100)) return { number: claimed.text, formula: `${claimed.text} = (${fmt(b)} − ${fmt(a)}) / ${fmt(a)} × 100` };
    }
  }
  return null;
}
