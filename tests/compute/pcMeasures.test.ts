import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { createComputeTools, openblasEnv, parseToolInput, type ComputeReport, type Tool, type ToolContext } from "../../tools/index.ts";
import { MemoryBlobStore } from "../support/memoryBlobStore.ts";
import { clustered, conventional, driscollKraay, leastSquares, twoWayClustered, weightedHc1, type Fit, type Matrix } from "../support/panelRegressions.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

// The seed's robustness table (seeds/003): seven standard-error variants of invest on value and capital,
// run as a Child would run them (scenarios/pcMeasures/regression_variants.py through compute), held to
// a reference computed here by plain matrix algebra (tests/support/panelRegressions.ts).
const programPath = new URL("../../scenarios/pcMeasures/regression_variants.py", import.meta.url);
const csvBytes = new Uint8Array(await fs.readFile(path.join(sharedCorpusDir(), "data", "grunfeld.csv")));
const workspace = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-pc-measures-"));
after(() => fs.rm(workspace, { recursive: true, force: true }));

interface Row {
  variant: string;
  coef_value: number;
  se_value: number;
  coef_capital: number;
  se_capital: number;
  obs: number;
  significant_value: boolean;
}

function reference(): Row[] {
  const [header, ...lines] = new TextDecoder().decode(csvBytes).trim().split("\n");
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
  const row = (variant: string, f: Fit, v: Matrix): Row => {
    const t = f.beta[1]! / Math.sqrt(v[1]![1]!);
    // 1.96 (normal) to 2.262 (t with 9 df) covers every reference distribution the variants use;
    // a t inside that band would make "significant" depend on the choice, so the test refuses it.
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

const closeTo = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= 1e-6 * Math.abs(expected), `${what}: ${actual} vs reference ${expected} (relative ${Math.abs(actual - expected) / Math.abs(expected)})`);

test("the seven pc-measures variants, run through compute, match the hand-written reference to 1e-6 relative", async () => {
  const blobs = new MemoryBlobStore();
  const ctx: ToolContext = {
    runId: "run-pc",
    executorId: "child-pc",
    signal: new AbortController().signal,
    idempotencyKey: "intent-pc",
    blobs,
    workspaceDir: workspace,
    now: () => new Date("2026-03-01T12:00:00Z"),
  };
  const csvSha256 = await blobs.put(csvBytes);
  const program = await fs.readFile(programPath, "utf8");
  const code = `${program}\nfor name in VARIANTS:\n    print_variant(name, "/inputs/grunfeld.csv")\n`;
  const tool = createComputeTools({ passEnv: openblasEnv(process.env) })[0] as Tool;
  const parsed = parseToolInput(tool, { language: "python", code, inputs: [{ sha256: csvSha256, name: "grunfeld.csv" }] });
  assert.ok(parsed.ok);
  const out = await tool.runSanitized(parsed.value, ctx);
  const report = JSON.parse(out.output) as ComputeReport;
  assert.equal(report.status, "ok", report.stderr);

  const got = report.stdout.trim().split("\n").map((l) => JSON.parse(l) as Row);
  const want = reference();
  assert.deepEqual(got.map((r) => r.variant), want.map((r) => r.variant));
  // The variants really differ (a formula that collapsed into another would still "match" itself).
  const ses = want.map((r) => r.se_value);
  for (let i = 0; i < ses.length; i++) for (let j = i + 1; j < ses.length; j++) assert.ok(Math.abs(ses[i]! - ses[j]!) > 1e-4 * ses[i]!, `${want[i]!.variant} and ${want[j]!.variant} have the same se_value`);
  for (const [i, r] of got.entries()) {
    const ref = want[i]!;
    assert.equal(r.obs, 200, r.variant);
    assert.equal(r.significant_value, ref.significant_value, `${r.variant} significant_value`);
    for (const key of ["coef_value", "se_value", "coef_capital", "se_capital"] as const) closeTo(r[key], ref[key], `${r.variant} ${key}`);
  }
  // Each number can be followed to the code that printed it and the data it read.
  assert.equal(await blobs.text(report.record.code_sha256), code);
  const stdoutSource = out.sources!.find((s) => s.kind === "workspace_file")!;
  assert.equal(await blobs.text(stdoutSource.textSha256), report.stdout);
  assert.deepEqual(out.sources!.find((s) => s.kind === "data")!.rawSha256, csvSha256);
});
