import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedEvent } from "../../events/index.ts";
import { verifyRun } from "../../events/verifyRun.ts";
import { resolveCaps } from "../../governance/index.ts";
import { hostRun, leaseOwner, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { findScenario } from "../../scenarios/index.ts";
import { DATA_URL, TABLE_FILE, VARIANTS } from "../../scenarios/pcMeasures/variants.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { openblasEnv } from "../../tools/index.ts";
import { answerOf, ofType, within } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { closeTo, pcMeasuresReference } from "../support/pcMeasuresReference.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

const HEADER = "variant,coef_value,se_value,coef_capital,se_capital,obs,significant_value";
const corpusDir = sharedCorpusDir();
const reference = pcMeasuresReference(await readFile(join(corpusDir, "data", "grunfeld.csv"), "utf8"));

let workspaces: string;
before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-pc-measures-run-"));
});
after(() => rm(workspaces, { recursive: true, force: true }));

forEachEngine("the pc-measures scenario, hosted as `ariadne run --scenario pc-measures` hosts it", (ctx) => {
  let runId: string;
  let mainExecutorId: string;
  let events: RecordedEvent[];
  let outcome: Parameters<typeof answerOf>[0];

  before(async () => {
    // The caps `ariadne run` records when no flag lowers them: the configured defaults, which 7 Children fit.
    const caps = resolveCaps();
    assert.ok(caps.delegation.maxFanOut >= VARIANTS.length, `fan-out ${caps.delegation.maxFanOut} fits ${VARIANTS.length} Children`);
    const submitted = await submitRun(ctx.store, { question: findScenario("pc-measures")!.question, options: { mode: "offline", scenario: "pc-measures", caps } });
    ({ runId, mainExecutorId } = submitted);
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const buildRuntime = runtimeFactory({ compute: { passEnv: openblasEnv(process.env) } }, { workspaceRoot: workspaces, corpusDir });
    const result = await within(240_000, hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 }, lease!).done);
    assert.equal(result.kind, "finished", JSON.stringify(result));
    outcome = (result as { outcome: typeof outcome }).outcome;
    events = await ctx.store.readRun(runId);
  });

  test("the run settles with an answer; Main fetched the data and admitted 7 compute Children in one turn", () => {
    const answer = answerOf(outcome);
    const [fetched] = ofType(events, "tool_completed").filter((e) => e.data.tool === "web_fetch");
    assert.equal(fetched!.data.sources[0]!.url, DATA_URL);
    assert.match(fetched!.data.sources[0]!.contentType, /^text\/csv/);

    const delegations = ofType(events, "tool_called").filter((e) => e.metadata.executorId === mainExecutorId && e.data.tool === "delegate");
    assert.equal(delegations.length, 7);
    assert.equal(new Set(delegations.map((e) => e.data.turn)).size, 1, "all seven in one turn");
    const children = ofType(events, "executor_admitted").filter((e) => e.data.role === "child");
    assert.deepEqual(children.map((e) => e.metadata.executorId).sort(), delegations.map((e) => e.data.childExecutorId).sort());
    assert.ok(children.every((e) => e.data.profile?.id === "compute-analyst" && e.data.grantedTools.includes("compute")));
    // Each Child's task carries the stored data's sha256, which its compute run read.
    const raw = fetched!.data.sources[0]!.rawSha256;
    assert.ok(children.every((e) => e.data.task.context.includes(raw)));

    const claims = answer.sections.flatMap((s) => s.claims);
    assert.equal(claims.filter((c) => c.basis === "observed").length, 7);
  });

  test("pc_measures.csv, read back from the blob store, has the header and 7 rows matching the reference to 1e-6", async () => {
    const published = ofType(events, "tool_completed").find((e) => e.metadata.executorId === mainExecutorId && e.data.tool === "publish_artifact");
    const artifact = published!.data.artifacts[0]!;
    assert.equal(artifact.path, TABLE_FILE);
    const bytes = await createDatabaseBlobStore(ctx.db.database.db).get(artifact.sha256);
    const [header, ...lines] = new TextDecoder().decode(bytes!).trimEnd().split("\n");
    assert.equal(header, HEADER);
    assert.equal(lines.length, 7);
    for (const [i, line] of lines.entries()) {
      const [variant, coefValue, seValue, coefCapital, seCapital, obs, significant] = line.split(",");
      const want = reference[i]!;
      assert.equal(variant, want.variant);
      closeTo(Number(coefValue), want.coef_value, `${variant} coef_value`);
      closeTo(Number(seValue), want.se_value, `${variant} se_value`);
      closeTo(Number(coefCapital), want.coef_capital, `${variant} coef_capital`);
      closeTo(Number(seCapital), want.se_capital, `${variant} se_capital`);
      assert.equal(Number(obs), 200, `${variant} obs`);
      assert.equal(significant, String(want.significant_value), `${variant} significant_value`);
    }
    console.log(`pc_measures.csv (${ctx.engine}):\n${[header, ...lines].join("\n")}`);
  });

  test("each row is traceable: the answer cites its Child's finding, which cites a compute run holding the code and result blobs", () => {
    const claims = answerOf(outcome).sections.flatMap((s) => s.claims).filter((c) => c.basis === "observed");
    const committed = ofType(events, "handoff_committed");
    for (const [i, variant] of VARIANTS.entries()) {
      const [cite] = claims[i]!.citations;
      const handoff = committed.find((e) => e.metadata.executorId === cite!.executor)!.data.handoff as {
        findings: { claim: string; evidence: { toolResults: string[] } }[];
        artifacts: { id: string; path: string; sha256: string }[];
        measurementBasis: { sources: string[] };
      };
      const finding = handoff.findings[cite!.finding]!;
      assert.match(finding.claim, new RegExp(`"variant": "${variant}"`));
      const [computed] = ofType(events, "tool_completed").filter((e) => e.metadata.executorId === cite!.executor && finding.evidence.toolResults.includes(e.data.toolUseId));
      assert.equal(computed!.data.tool, "compute");
      const report = JSON.parse(computed!.data.output) as { record: { code_sha256: string }; inputs: { sha256: string }[] };
      const result = computed!.data.artifacts.find((a) => a.path === `${variant}.json`)!;
      const hashes = [...computed!.data.artifacts.map((a) => a.sha256), ...computed!.data.sources.map((s) => s.rawSha256)];
      assert.ok(hashes.includes(report.record.code_sha256) && hashes.includes(result.sha256), `${variant}: the compute run holds the code and result blobs`);
      assert.deepEqual(handoff.artifacts, [{ id: result.id, path: result.path, sha256: result.sha256 }]);
      const basis = handoff.measurementBasis.sources.join("\n");
      for (const part of [result.id, result.path, result.sha256, `${result.bytes} bytes`, report.record.code_sha256, report.inputs[0]!.sha256]) assert.ok(basis.includes(part), `${variant}: the basis names ${part}`);
    }
  });

  test("verifyRun passes, blobs included", async () => {
    const verified = await verifyRun(ctx.db.database, runId);
    assert.deepEqual(verified.problems, []);
    assert.ok(verified.ok && verified.sealed);
  });
});
