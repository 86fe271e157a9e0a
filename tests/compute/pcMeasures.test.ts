import assert from "node:assert/strict";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { createComputeTools, openblasEnv, parseToolInput, type ComputeReport, type Tool, type ToolContext } from "../../tools/index.ts";
import { MemoryBlobStore } from "../support/memoryBlobStore.ts";
import { closeTo, pcMeasuresReference, type PcMeasuresRow } from "../support/pcMeasuresReference.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

// The seed's robustness table (seeds/003): seven standard-error variants of invest on value and capital,
// run as a Child would run them (scenarios/pcMeasures/regression_variants.py through compute), held to
// a reference computed here by plain matrix algebra (tests/support/panelRegressions.ts).
const programPath = new URL("../../scenarios/pcMeasures/regression_variants.py", import.meta.url);
const csvBytes = new Uint8Array(await fs.readFile(path.join(sharedCorpusDir(), "data", "grunfeld.csv")));
const workspace = await fs.mkdtemp(path.join(os.tmpdir(), "ariadne-pc-measures-"));
after(() => fs.rm(workspace, { recursive: true, force: true }));

type Row = PcMeasuresRow;
const reference = () => pcMeasuresReference(new TextDecoder().decode(csvBytes));

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
