import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateKeyPairSync } from "node:crypto";
import type { RecordedEvent } from "../../events/index.ts";
import { verifyRun } from "../../events/verifyRun.ts";
import { textAtCodePoints } from "../../handoff/index.ts";
import { type RunClaims, isolationFigures, projectClaims, reportOfEvents } from "../../projections/index.ts";
import { hostRun, leaseOwner, planRun, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { openblasEnv } from "../../tools/index.ts";
import { within } from "../actors/fixtures.ts";
import { exportRun } from "../../bundle/exportRun.ts";
import { verifyBundle } from "../../bundle/verifyBundle.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

const SCENARIOS = ["etf-overlap", "pc-measures", "morning-briefing"] as const;
const key = generateKeyPairSync("ed25519");

let workspaces: string;
before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-single-agent-"));
});
after(() => rm(workspaces, { recursive: true, force: true }));

forEachEngine("a single-agent run (--single-agent) of each offline scenario: one executor, no delegation, claims chained to sources", (ctx) => {
  for (const scenario of SCENARIOS) {
    describe(scenario, () => {
      let runId: string;
      let events: RecordedEvent[];
      let claims: RunClaims;

      before(async () => {
        // As `ariadne run --single-agent --scenario X` plans it.
        const plan = await planRun({ scenario, singleAgent: true }, { modelConfigured: false, nothingAsked: "scenario" });
        const submitted = await submitRun(ctx.store, plan);
        runId = submitted.runId;
        const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
        const buildRuntime = runtimeFactory({ compute: { passEnv: openblasEnv(process.env) } }, { workspaceRoot: workspaces, corpusDir: sharedCorpusDir() });
        const result = await within(240_000, hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 }, lease!).done);
        assert.equal(result.kind, "finished", JSON.stringify(result));
        events = await ctx.store.readRun(runId);
        claims = await projectClaims(ctx.store, runId);
      });

      test("the log says how the run was made: one executor, admitted as the single agent, holding no delegate and calling none", () => {
        const submitted = events.find((e): e is RecordedEvent<"run_submitted"> => e.type === "run_submitted")!;
        assert.equal(submitted.data.options.singleAgent, true);
        // One executor does the research; the Checker the host starts on its answer is the only other.
        const all = events.filter((e): e is RecordedEvent<"executor_admitted"> => e.type === "executor_admitted");
        assert.deepEqual(all.map((e) => e.data.role), ["main", "checker"]);
        const admitted = all.filter((e) => e.data.role === "main");
        assert.equal(admitted[0]!.data.role, "main");
        assert.equal(admitted[0]!.data.singleAgent, true);
        assert.ok(!admitted[0]!.data.grantedTools.includes("delegate"), admitted[0]!.data.grantedTools.join(", "));
        for (const tool of ["web_fetch", "document_read", "compute", "write_file"]) assert.ok(admitted[0]!.data.grantedTools.includes(tool), `holds ${tool}`);
        assert.ok(!events.some((e) => e.type === "tool_called" && (e as RecordedEvent<"tool_called">).data.tool === "delegate"));
        const settled = events.find((e): e is RecordedEvent<"settled"> => e.type === "settled")!;
        assert.equal(settled.data.outcome, "answered");
        assert.notEqual(settled.data.partial, true);
        assert.equal(isolationFigures({ runId, events }).singleAgent, true);
        assert.equal(reportOfEvents(runId, events).singleAgent, true, "the run report says so");
      });

      test("each observed claim cites the agent's own finding, whose quotes are in the bytes of the blobs its own tool calls stored", async () => {
        const blobs = createDatabaseBlobStore(ctx.db.database.db);
        const observed = claims.claims.filter((c) => c.basis === "observed");
        assert.ok(observed.length > 0, "the answer has observed claims");
        for (const claim of observed) {
          assert.ok(claim.findings.length > 0, `${claim.id} cites a finding`);
          for (const f of claim.findings) {
            assert.deepEqual(f.problems, [], `${claim.id}: ${f.problems.join("; ")}`);
            assert.equal(f.executorId, claims.answer!.executorId, "the finding is the single agent's own");
            assert.ok(f.handoff && f.turn, `${claim.id}: the committed evidence and the model turn that wrote it`);
            assert.ok(f.quotes.length > 0, `${claim.id} rests on a quote`);
            for (const q of f.quotes) {
              assert.ok(q.blob && q.source && q.call?.outcome?.type === "tool_completed", `${claim.id}: the quote's chain is whole`);
              const bytes = await blobs.get(q.blob.sha256);
              assert.ok(bytes, `blob ${q.blob.sha256} is stored`);
              assert.equal(textAtCodePoints(new TextDecoder().decode(bytes), q.blob.charStart, q.blob.charEnd), q.text);
            }
          }
        }
      });

      test("verify finds the run intact, seal and quotes included; its exported bundle verifies offline, claims included", async () => {
        const result = await verifyRun(ctx.db.database, runId);
        assert.deepEqual(result.problems, []);
        assert.ok(events.some((e) => e.type === "run_sealed"));
        const dir = join(workspaces, `bundle-${ctx.engine}-${scenario}`);
        await exportRun(ctx.db.database, runId, dir, key.privateKey);
        const bundle = verifyBundle(dir, { publicKey: key.publicKey });
        assert.deepEqual(bundle.problems, []);
        assert.equal(bundle.ok, true);
      });
    });
  }

  test("a single agent stopped by its turn cap settles partial, its own gathered work committed as unverified material and cited as such", async () => {
    const plan = await planRun({ scenario: "etf-overlap", singleAgent: true, caps: { main: { maxTurns: 3 } } }, { modelConfigured: false, nothingAsked: "scenario" });
    const { runId } = await submitRun(ctx.store, plan);
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const buildRuntime = runtimeFactory({}, { workspaceRoot: workspaces, corpusDir: sharedCorpusDir() });
    const result = await within(240_000, hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 }, lease!).done);
    assert.equal(result.kind, "finished", JSON.stringify(result));
    const events = await ctx.store.readRun(runId);
    const committed = events.find((e): e is RecordedEvent<"handoff_committed"> => e.type === "handoff_committed")!;
    assert.equal(committed.data.forced, true);
    const settled = events.find((e): e is RecordedEvent<"settled"> => e.type === "settled")!;
    assert.equal(settled.data.partial, true);
    const claims = await projectClaims(ctx.store, runId);
    // What it gathered before the stop is cited, as unverified (not collected), never as observed.
    const cited = claims.claims.filter((c) => c.findings.length > 0);
    assert.ok(cited.length > 0, "what it gathered before the stop is cited");
    for (const c of cited) {
      for (const f of c.findings) assert.deepEqual(f.problems, [], `${c.id}: ${f.problems.join("; ")}`);
      if (c.findings.every((f) => f.gathered)) assert.deepEqual([c.basis, c.text.startsWith("Unverified: ")], ["not_collected", true], c.text);
    }
    assert.ok(cited.some((c) => c.findings.every((f) => f.gathered)), "gathered material is among what it cites");
    assert.deepEqual((await verifyRun(ctx.db.database, runId)).problems, []);
  });
});
