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
      if (i === j) continue;
      const a = operands[i];
      const b = operands[j];
      for (const x of a.values) {
        for (const y of b.values) {
          if (x === 0 && y === 0) continue;
          if (i < j && near(x - y)) return { number: claimed.text, formula: `${claimed.text} = ${fmt(a)} − ${fmt(b)}` };
          if (i < j && near(x + y)) return { number: claimed.text, formula: `${claimed.text} = ${fmt(a)} + ${fmt(b)}` };
          if (y !== 0 && near(x / y)) return { number: claimed.text, formula: `${claimed.text} = ${fmt(a)} / ${fmt(b)}` };
          if (x !== 0 && near(((y - x) / x) * 100)) return { number: claimed.text, formula: `${claimed.text} = (${fmt(b)} − ${fmt(a)}) / ${fmt(a)} × 100` };
          if (x !== 0 && near((y - x) / x)) return { number: claimed.text, formula: `${claimed.text} = (${fmt(b)} − ${fmt(a)}) / ${fmt(a)}` };
        }
      }
    }
  }
  return null;
}
