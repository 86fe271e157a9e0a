import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedEvent } from "../../events/index.ts";
import { sealRun, verifyRun } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { executorTree, foldRun } from "../../projections/index.ts";
import { checkBeforeSeal } from "../../runs/check/checkBeforeSeal.ts";
import { createCheckerTools } from "../../runs/check/checkerTools.ts";
import type { SourceReaders } from "../../runs/check/rereadSources.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { scriptedCheckerModel } from "../../scenarios/scriptedChecker.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { ToolRegistry, createWebTools } from "../../tools/index.ts";
import { delegatingMain, delegation, handoffInput, handoffReply, runtimeWith, useReply, within } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";

const FEE = "The ongoing charge is 0.45% a year, down from 0.52%.";
let page = "";
let server: Server;
let origin: string;
let workspaces: string;

before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-checker-role-"));
  server = createServer((_, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(page));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await rm(workspaces, { recursive: true, force: true });
});

/** A Child that fetches `url` and hands off the fee sentence, quoted from the page. */
const child = (url: string) =>
  new ScriptedModel({
    name: "child",
    policy: (request) => {
      if (turnsTaken(request) === 0) return useReply("web_fetch", { url });
      const read = request.messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).find((b) => b.type === "tool_use") as { id: string };
      return handoffReply(handoffInput("Read it.", [{ claim: FEE, evidence: { toolResults: [read.id], citations: [], quotes: [{ toolUseId: read.id, text: FEE }] }, confidence: "high" }]));
    },
  });

/** Main delegating the page once, then answering with its answer changed by `edit`. */
function main(url: string, edit: (answer: { summary: string; sections: { heading: string; claims: { text: string }[] }[] }) => void): ScriptedModel {
  const base = delegatingMain([delegation(`What does ${url} say about the charge?`, "web-explorer", { tools: ["web_fetch"] })]);
  const policy: ScriptPolicy = async (request, i) => {
    const reply = await base(request, i);
    if (typeof reply === "object" && !(reply instanceof Error)) for (const b of reply.content) if (b.type === "tool_use" && b.name === "answer") edit(b.input as never);
    return reply;
  };
  return new ScriptedModel({ name: "main", policy });
}

forEachEngine("the Checker role: an executor on Main's answer, before the seal", (ctx) => {
  const readers = (): SourceReaders => ({ web: { allowLoopback: true }, blobs: createDatabaseBlobStore(ctx.db.database.db), workspaceRoot: workspaces });

  /** A run whose Main answered with `edit` applied, its page then replaced by `pageAfter`, checked by the scripted Checker and sealed. */
  async function checkedRun(edit: Parameters<typeof main>[1], pageAfter?: string, limits?: { maxTurns: number }) {
    page = `Fund notice.\n${FEE}\nPublished 1 October 2026.`;
    const url = `${origin}/notice-${Math.random().toString(36).slice(2)}`;
    const runtime = runtimeWith(
      ctx.store,
      { main: main(url, edit), child: child(url), checker: scriptedCheckerModel() },
      {
        modelNames: { main: "test-main", child: "test-child", checker: "scripted:checker" },
        tools: new ToolRegistry().register(...createWebTools({ allowLoopback: true }), ...createCheckerTools({ store: ctx.store, readers: async () => readers() })),
        blobs: createDatabaseBlobStore(ctx.db.database.db),
        workspaceRoot: workspaces,
        ...(limits && { limits: { checker: limits } }),
      },
    );
    const run = await runtime.startRun("What is the charge?");
    assert.equal((await within(20_000, run.result)).kind, "answer");
    if (pageAfter !== undefined) page = pageAfter;
    await within(20_000, checkBeforeSeal(ctx.store, runtime, run, readers()));
    await sealRun(ctx.store, run);
    const events = await ctx.store.readRun(run.runId);
    const checks = events.filter((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
    assert.equal(checks.length, 1);
    assert.ok(events.indexOf(checks[0]) < events.findIndex((e) => e.type === "run_sealed"), "recorded before the seal");
    assert.deepEqual((await verifyRun(ctx.db.database, run.runId)).problems, []);
    return { run, events, check: checks[0].data };
  }

  test("flags an invented number, a changed source and advice language, from its tools' recorded outputs", async () => {
    const { check, events } = await checkedRun(
      (answer) => {
        answer.summary = "The charge falls to 0.45%. You should buy the fund before the cut.";
        answer.sections[0].claims[0].text = "The ongoing charge is 0.45% a year, down from 0.62%.";
        answer.sections[0].claims.push({ text: "A 5% position in the fund suits a cautious investor.", basis: "judgment", citations: [] } as never);
      },
      "Fund notice.\nThe ongoing charge is 0.49% a year.",
    );
    assert.equal(check.verdict, "flagged");
    assert.equal(check.checker?.state, "completed");
    const [fee, position] = check.claims;
    assert.equal(fee.verdict, "flagged");
    assert.deepEqual(fee.unsupportedNumbers, ["0.62%"], "the invented number");
    assert.deepEqual(check.sources.map((s) => s.state), ["no_longer_supports"], "the changed source");
    assert.equal(position.verdict, "flagged", "position advice");
    assert.deepEqual(check.advice.map((a) => a.where), ["summary", "c2"]);
    // The Checker's own verdicts (check_submitted) say the same, each naming the tool output it rests on.
    const submitted = events.find((e): e is RecordedEvent<"check_submitted"> => e.type === "check_submitted")!;
    assert.deepEqual(submitted.data.verdicts.map((v) => [v.claimId, v.verdict]), [["c1", "flagged"], ["c2", "flagged"]]);
    assert.match(submitted.data.verdicts[0].note ?? "", /check_numbers: 0\.62%.*reread_sources: .* no_longer_supports/);
    assert.match(submitted.data.verdicts[1].note ?? "", /check_advice/);
  });

  test("a clean answer: supported, a judgment marked no_evidence; the Checker is in the executor tree under Main", async () => {
    const { check, run, events } = await checkedRun((answer) => {
      answer.sections[0].claims.push({ text: "The fee matters most to long holders.", basis: "judgment", citations: [] } as never);
    });
    assert.equal(check.verdict, "supported");
    assert.deepEqual(check.claims.map((c) => c.verdict), ["supported", "no_evidence"]);
    const tree = executorTree(foldRun(events).progress);
    assert.equal(tree.length, 1);
    const checker = tree[0].children.find((c) => c.role === "checker");
    assert.ok(checker, JSON.stringify(tree));
    assert.equal(checker.profile, "checker");
    assert.equal(checker.status, "settled");
    assert.equal(tree[0].executorId, run.mainExecutorId);
  });

  test("a Checker stopped by its limits leaves the check incomplete, never passed; the run is still sealed", async () => {
    const { check } = await checkedRun(() => {}, undefined, { maxTurns: 1 });
    assert.equal(check.verdict, "incomplete");
    assert.deepEqual(check.claims, []);
    assert.equal(check.checker?.state, "incomplete");
    assert.match(check.checker?.reason ?? "", /turn limit/);
  });

  test("a Checker asked to pass what its tools flagged is overruled by them", async () => {
    // mergeVerdicts is what check_completed is built with: the tools' verdict stands.
    const { mergeVerdicts } = await import("../../runs/check/checkBeforeSeal.ts");
    const tools = { answerEventId: "a", verdict: "flagged" as const, claims: [{ claimId: "c1", basis: "observed" as const, verdict: "flagged" as const, notes: ["0.62%: in no cited source text or artifact"], numbers: ["0.62%"], unsupportedNumbers: ["0.62%"], sources: [] }], summary: { numbers: [], unsupportedNumbers: [] }, advice: [], sources: [] };
    const merged = mergeVerdicts(tools, { verdicts: [{ claimId: "c1", verdict: "supported" }], forced: false }, { executorId: "x", model: "m", state: "completed" });
    assert.equal(merged.claims[0].verdict, "flagged");
    assert.equal(merged.verdict, "flagged");
    assert.match(merged.claims[0].notes.at(-1)!, /the Checker said supported; the tools' outputs say flagged, which stands/);
  });
});
