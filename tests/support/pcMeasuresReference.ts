import assert from "node:assert/strict";
import { clustered, conventional, driscollKraay, leastSquares, twoWayClustered, weightedHc1, type Fit, type Matrix } from "./panelRegressions.ts";

/** One row of the pc-measures table, as the variants' program prints it. */
export interface PcMeasuresRow {
  variant: string;
  coef_value: number;
  se_value: number;
  coef_capital: number;
  se_capital: number;
  obs: number;
  significant_value: boolean;
}

/**
 * The seven variants of invest on value and capital over the first 200 rows of
 * grunfeld.csv, by plain matrix algebra (panelRegressions.ts): the reference the
 * sandboxed statsmodels runs are held to.
 */
export function pcMeasuresReference(csvText: string): PcMeasuresRow[] {
  const [header, ...lines] = csvText.trim().split("\n");
  assert.equal(header, "invest,value,capital,firm,year");
  const data = lines.slice(0, 200).map((l) => {
    const [invest, value, capital, firm, year] = l.split(",");
    return { invest: Number(invest), value: Number(value), capital: Number(capital), firm: firm!, year: Number(year) };
  });
  const firms = [...new Set(data.map((d) => d.firm))];
  const years = [...new Set(data.map((d) => d.year))].sort((a, b) => a - b);
  assert.deepEqual([firms.length, years[0], years.at(-1)], [10, 1935, 1954]);
  const y = data.map((d) => d.invest);
  // Constant, value, capital, then a dummy per firm (year) but the first: the coefficients of value and
  // capital and their variances do not depend on which category is left out.
  const design = (firmFe: boolean, yearFe: boolean): Matrix =>
    data.map((d) => [
      1, d.value, d.capital,
      ...(firmFe ? firms.slice(1).map((f) => (d.firm === f ? 1 : 0)) : []),
      ...(yearFe ? years.slice(1).map((t) => (d.year === t ? 1 : 0)) : []),
    ]);
  const firm = data.map((d) => d.firm);
  const year = data.map((d) => d.year);
  const ols = leastSquares(design(false, false), y);
  const raw = data.map((d) => 1 / d.value);
  const total = raw.reduce((s, w) => s + w, 0);
  const w = raw.map((v) => (v * data.length) / total); // aweights sum to N
  const wls = leastSquares(design(false, false), y, w);
  const fe = leastSquares(design(true, false), y);
  const fe2 = leastSquares(design(true, true), y);
  const row = (variant: string, f: Fit, v: Matrix): PcMeasuresRow => {
    const t = f.beta[1]! / Math.sqrt(v[1]![1]!);
    // 1.96 (normal) to 2.262 (t with 9 df) covers every reference distribution the variants use;
    // a t inside that band would make "significant" depend on the choice, so the reference refuses it.
    assert.ok(Math.abs(t) > 2.2622 || Math.abs(t) < 1.96, `${variant}: |t| = ${Math.abs(t)} is between the critical values`);
    return { variant, coef_value: f.beta[1]!, se_value: Math.sqrt(v[1]![1]!), coef_capital: f.beta[2]!, se_capital: Math.sqrt(v[2]![2]!), obs: f.n, significant_value: Math.abs(t) > 2.2622 };
  };
  return [
    row("ols", ols, conventional(ols)),
    row("ols_cluster_firm", ols, clustered(ols, firm)),
    row("ols_cluster_firm_year", ols, twoWayClustered(ols, firm, year)),
    row("ols_driscoll_kraay_4", ols, driscollKraay(ols, year, 4)),
    row("wls_inv_value_robust", wls, weightedHc1(wls, w)),
    row("fe_firm_cluster_firm", fe, clustered(fe, firm)),
    row("fe_firm_year_cluster_firm", fe2, clustered(fe2, firm)),
  ];
}

/** Within 1e-6 of the reference, relative. */
export const closeTo = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.abs(expected), `${what}: ${actual} vs reference ${expected} (relative ${Math.abs(actual - expected) / Math.abs(expected)})`);
