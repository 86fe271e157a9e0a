/**
 * Reference estimators for the pc-measures test, written out by hand (no
 * library, no Python) so they check the sandboxed statsmodels runs independently.
 *
 * N observations, K coefficients, X the N x K design, e the residuals, B = (X'X)^-1.
 *   conventional     V = s^2 B, s^2 = e'e / (N - K)
 *   cluster (g)      V = c B M B, M = sum_g (X_g'e_g)(X_g'e_g)', c = G/(G-1) * (N-1)/(N-K)   (Stata vce(cluster))
 *   two-way (CGM)    V = V_firm + V_year - V_firm*year, each without c; firm*year cells hold one
 *                    observation, so V_firm*year = B (sum_i e_i^2 x_i x_i') B (HC0)         (ivreg2 cluster(a b))
 *   Driscoll-Kraay   h_t = sum_{i in t} x_it e_it; S = sum_t h_t h_t' + sum_{j=1..L} (1 - j/(L+1)) sum_t (h_t h_{t-j}' + h_{t-j} h_t');
 *                    V = B S B, no factor; L = 4 is ivreg2's dkraay(5) (Bartlett, bandwidth 5)
 *   WLS, HC1         w normalised to sum to N (Stata aweights); A = (X'WX)^-1;
 *                    V = N/(N-K) A (sum_i w_i^2 e_i^2 x_i x_i') A                          (regress [aw=w], robust)
 */
export type Matrix = number[][];

const zeros = (r: number, c: number): Matrix => Array.from({ length: r }, () => new Array<number>(c).fill(0));

export function transpose(a: Matrix): Matrix {
  return a[0]!.map((_, j) => a.map((row) => row[j]!));
}

export function multiply(a: Matrix, b: Matrix): Matrix {
  const out = zeros(a.length, b[0]!.length);
  for (let i = 0; i < a.length; i++) {
    for (let k = 0; k < b.length; k++) {
      const aik = a[i]![k]!;
      if (aik === 0) continue;
      for (let j = 0; j < b[0]!.length; j++) out[i]![j]! += aik * b[k]![j]!;
    }
  }
  return out;
}

/** Gauss-Jordan with partial pivoting; throws on a singular matrix. */
export function invert(m: Matrix): Matrix {
  const n = m.length;
  const a = m.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    if (Math.abs(a[pivot]![col]!) < 1e-12) throw new Error("singular matrix");
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    const p = a[col]![col]!;
    for (let j = 0; j < 2 * n; j++) a[col]![j]! /= p;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r]![col]!;
      if (f !== 0) for (let j = 0; j < 2 * n; j++) a[r]![j]! -= f * a[col]![j]!;
    }
  }
  return a.map((row) => row.slice(n));
}

const outer = (u: number[], v: number[]): Matrix => u.map((x) => v.map((y) => x * y));
const add = (a: Matrix, b: Matrix, scale = 1): Matrix => a.map((row, i) => row.map((x, j) => x + scale * b[i]![j]!));
const scaled = (a: Matrix, c: number): Matrix => a.map((row) => row.map((x) => x * c));
const sandwich = (bread: Matrix, meat: Matrix) => multiply(multiply(bread, meat), bread);

export interface Fit {
  beta: number[];
  residuals: number[];
  /** (X'WX)^-1; W = I for OLS. */
  bread: Matrix;
  x: Matrix;
  n: number;
  k: number;
}

/** Least squares (weighted when w is given) by the normal equations. */
export function leastSquares(x: Matrix, y: number[], w?: number[]): Fit {
  const weights = w ?? y.map(() => 1);
  const xw = x.map((row, i) => row.map((v) => v * weights[i]!));
  const bread = invert(multiply(transpose(x), xw));
  const xty = transpose(xw).map((col) => col.reduce((s, v, i) => s + v * y[i]!, 0));
  const beta = bread.map((row) => row.reduce((s, v, j) => s + v * xty[j]!, 0));
  const residuals = y.map((yi, i) => yi - x[i]!.reduce((s, v, j) => s + v * beta[j]!, 0));
  return { beta, residuals, bread, x, n: x.length, k: x[0]!.length };
}

/** Score x_i e_i (times w_i for WLS) of each observation. */
const scores = (f: Fit, w?: number[]) => f.x.map((row, i) => row.map((v) => v * f.residuals[i]! * (w ? w[i]! : 1)));

function sumByGroup(rows: number[][], groups: readonly (string | number)[]): Map<string | number, number[]> {
  const sums = new Map<string | number, number[]>();
  rows.forEach((row, i) => {
    const s = sums.get(groups[i]!) ?? new Array<number>(row.length).fill(0);
    row.forEach((v, j) => (s[j]! += v));
    sums.set(groups[i]!, s);
  });
  return sums;
}

export function conventional(f: Fit): Matrix {
  const s2 = f.residuals.reduce((s, e) => s + e * e, 0) / (f.n - f.k);
  return scaled(f.bread, s2);
}

/** Cluster-robust, with Stata's factor unless `factor` is false. */
export function clustered(f: Fit, groups: readonly (string | number)[], factor = true): Matrix {
  const sums = sumByGroup(scores(f), groups);
  let meat = zeros(f.k, f.k);
  for (const s of sums.values()) meat = add(meat, outer(s, s));
  const g = sums.size;
  const c = factor ? (g / (g - 1)) * ((f.n - 1) / (f.n - f.k)) : 1;
  return scaled(sandwich(f.bread, meat), c);
}

export function twoWayClustered(f: Fit, a: readonly (string | number)[], b: readonly (string | number)[]): Matrix {
  const cells = a.map((x, i) => `${x}\u0000${b[i]}`);
  return add(add(clustered(f, a, false), clustered(f, b, false)), clustered(f, cells, false), -1);
}

export function driscollKraay(f: Fit, time: readonly number[], lags: number): Matrix {
  const byTime = sumByGroup(scores(f), time);
  const periods = [...byTime.keys()].map(Number).sort((p, q) => p - q);
  const h = (t: number) => byTime.get(t);
  let s = zeros(f.k, f.k);
  for (const t of periods) s = add(s, outer(h(t)!, h(t)!));
  for (let j = 1; j <= lags; j++) {
    const weight = 1 - j / (lags + 1);
    for (const t of periods) {
      const lagged = h(t - j);
      if (!lagged) continue;
      s = add(s, add(outer(h(t)!, lagged), outer(lagged, h(t)!)), weight);
    }
  }
  return sandwich(f.bread, s);
}

/** HC1 for WLS, from a fit made with the same (normalised) weights. */
export function weightedHc1(f: Fit, w: number[]): Matrix {
  let meat = zeros(f.k, f.k);
  for (const s of scores(f, w)) meat = add(meat, outer(s, s));
  return scaled(sandwich(f.bread, meat), f.n / (f.n - f.k));
}
