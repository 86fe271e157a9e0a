import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyRun } from "../../events/verifyRun.ts";
import { textAtCodePoints } from "../../handoff/index.ts";
import { type RunClaims, projectClaims } from "../../projections/index.ts";
import { hostRun, leaseOwner, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { findScenario } from "../../scenarios/index.ts";
import { sha256Hex } from "../../sources/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { openblasEnv } from "../../tools/index.ts";
import { within } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

const SCENARIOS = ["etf-overlap", "pc-measures", "morning-briefing"] as const;

let workspaces: string;
before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-provenance-"));
});
after(() => rm(workspaces, { recursive: true, force: true }));

forEachEngine("every observed claim of the offline scenarios ends in the bytes of a stored blob that hold its quote", (ctx) => {
  for (const scenario of SCENARIOS) {
    describe(scenario, () => {
      let runId: string;
      let claims: RunClaims;

      before(async () => {
        const submitted = await submitRun(ctx.store, { question: findScenario(scenario)!.question, options: { mode: "offline", scenario } });
        runId = submitted.runId;
        const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
        const buildRuntime = runtimeFactory({ compute: { passEnv: openblasEnv(process.env) } }, { workspaceRoot: workspaces, corpusDir: sharedCorpusDir() });
        const result = await within(240_000, hostRun({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 }, lease!).done);
        assert.equal(result.kind, "finished", JSON.stringify(result));
        claims = await projectClaims(ctx.store, runId);
      });

      test("each observed claim: finding, Child and profile binding, model turn, quotes, tool call intent and outcome, source", async () => {
        const blobs = createDatabaseBlobStore(ctx.db.database.db);
        const observed = claims.claims.filter((c) => c.basis === "observed");
        assert.ok(observed.length > 0, "the answer has observed claims");
        let quotes = 0;
        for (const claim of observed) {
          assert.ok(claim.findings.length > 0, `${claim.id} cites a finding`);
          for (const f of claim.findings) {
            assert.deepEqual(f.problems, [], `${claim.id}: ${f.problems.join("; ")}`);
            assert.ok(f.child.profile && f.child.admission, `${claim.id}: the Child's profile binding and admission`);
            assert.ok(f.handoff && f.turn, `${claim.id}: the handoff and the model turn that wrote it`);
            assert.ok(f.quotes.length > 0, `${claim.id} rests on a quote: ${f.claim}`);
            for (const q of f.quotes) {
              quotes++;
              assert.ok(q.blob && q.source && q.call?.intent && q.call.outcome?.type === "tool_completed", `${claim.id}: the quote's chain is whole`);
              const blobSha = q.source.kind === "source" ? q.source.textSha256 : q.source.sha256;
              assert.equal(q.blob.sha256, blobSha, "the quote's blob is the text of a source (or an artifact) its tool call recorded");
              const bytes = await blobs.get(q.blob.sha256);
              assert.ok(bytes, `blob ${q.blob.sha256} is stored`);
              assert.equal(sha256Hex(bytes), q.blob.sha256, "the blob's bytes hash to the recorded sha256");
              const text = new TextDecoder().decode(bytes);
              assert.ok(text.includes(q.text), `blob ${q.blob.sha256} holds the quoted text`);
              assert.equal(textAtCodePoints(text, q.blob.charStart, q.blob.charEnd), q.text, "at the recorded character offsets");
              if (q.source.kind === "source") {
                const raw = await blobs.get(q.source.rawSha256);
                assert.ok(raw && sha256Hex(raw) === q.source.rawSha256, "the source's raw bytes are stored and hash right");
              }
            }
          }
        }
        assert.ok(quotes >= observed.length);
        for (const claim of claims.claims.filter((c) => c.basis !== "observed")) assert.ok(claim.noEvidence, `${claim.id} says it has no evidence`);
      });

      test("verify finds the run intact, quotes included", async () => {
        const result = await verifyRun(ctx.db.database, runId);
        assert.deepEqual(result.problems, []);
      });
    });
  }
});
