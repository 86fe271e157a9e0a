import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sealRun, verifyRun } from "../../events/index.ts";
import { ScriptedModel, type ScriptPolicy } from "../../models/index.ts";
import { checkRun } from "../../runs/checkRun.ts";
import type { SourceReaders } from "../../runs/check/rereadSources.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { ToolRegistry, createWebTools, createWorkspaceTools, workspaceDirFor } from "../../tools/index.ts";
import { delegatingMain, delegation, handoffInput, handoffReply, runtimeWith, useReply, within } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";

const FEE = "The ongoing charge is 0.45% a year, down from 0.52%.";
let page = "";
let server: Server;
let origin: string;
let workspaces: string;

before(async () => {
  workspaces = await mkdtemp(join(tmpdir(), "ariadne-checkrun-"));
  server = createServer((_, res) => res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(page));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await rm(workspaces, { recursive: true, force: true });
});

/** A Child that calls `first` and hands off one finding quoting `quote` from that call's result. */
function quotingChild(first: { tool: string; input: unknown }[], quote: string): ScriptedModel {
  return new ScriptedModel({
    name: "child",
    policy: (request) => {
      const turn = turnsTaken(request);
      if (turn < first.length) return useReply(first[turn].tool, first[turn].input);
      const uses = request.messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).filter((b) => b.type === "tool_use") as { id: string; name: string }[];
      const read = uses.findLast((u) => u.name === first.at(-1)!.tool)!;
      return handoffReply(handoffInput("Read it.", [{ claim: quote, evidence: { toolResults: [read.id], citations: [], quotes: [{ toolUseId: read.id, text: quote }] }, confidence: "high" }]));
    },
  });
}

/** Main delegating once, then answering as the fixtures do, with its answer changed by `edit`. */
function main(question: string, profile: string, tools: string[], edit: (answer: { summary: string; sections: { heading: string; claims: { text: string }[] }[] }) => void = () => {}): ScriptedModel {
  const base = delegatingMain([delegation(question, profile, { tools })]);
  const policy: ScriptPolicy = async (request, i) => {
    const reply = await base(request, i);
    if (typeof reply === "object" && !(reply instanceof Error)) {
      for (const b of reply.content) if (b.type === "tool_use" && b.name === "answer") edit(b.input as never);
    }
    return reply;
  };
  return new ScriptedModel({ name: "main", policy });
}

forEachEngine("ariadne's checker flags what no longer holds", (ctx) => {
  const readers = (): SourceReaders => ({ web: { allowLoopback: true }, blobs: createDatabaseBlobStore(ctx.db.database.db), workspaceRoot: workspaces });

  async function webRun(edit?: Parameters<typeof main>[3]) {
    page = `Fund notice.\n${FEE}\nPublished 1 October 2026.`;
    const url = `${origin}/notice-${Math.random().toString(36).slice(2)}`;
    const runtime = runtimeWith(
      ctx.store,
      { main: main(`What does ${url} say about the charge?`, "web-explorer", ["web_fetch"], edit), child: quotingChild([{ tool: "web_fetch", input: { url } }], FEE) },
      { tools: new ToolRegistry().register(...createWebTools({ allowLoopback: true })), blobs: createDatabaseBlobStore(ctx.db.database.db), workspaceRoot: workspaces },
    );
    const run = await runtime.startRun("What is the charge?");
    const outcome = await within(20_000, run.result);
    assert.equal(outcome.kind, "answer", JSON.stringify(outcome));
    await sealRun(ctx.store, run);
    return run;
  }

  test("an unchanged run checks clean, and the check after the seal leaves the run intact", async () => {
    const run = await webRun();
    const { result, recorded } = await checkRun(ctx.store, run.runId, readers());
    assert.equal(result.verdict, "supported", JSON.stringify(result));
    assert.deepEqual(result.claims.map((c) => [c.verdict, c.numbers]), [["supported", ["0.45%", "0.52%"]]]);
    assert.deepEqual(result.sources.map((s) => s.state), ["unchanged"]);
    assert.equal(recorded.streamId, `run-${run.runId}`);
    assert.deepEqual((await verifyRun(ctx.db.database, run.runId)).problems, []);
  });

  test("a changed page: still supports while its quote and numbers stay, no longer supports once they go", async () => {
    const run = await webRun();
    page = `Fund notice, revised.\n${FEE}\nPublished 1 October 2026. Updated 3 October.`;
    const still = (await checkRun(ctx.store, run.runId, readers())).result;
    assert.deepEqual(still.sources.map((s) => s.state), ["still_supports"]);
    assert.equal(still.verdict, "supported");
    assert.match(still.claims[0].notes.join("\n"), /changed but still supports it/);

    page = "Fund notice.\nThe ongoing charge is 0.49% a year.";
    const gone = (await checkRun(ctx.store, run.runId, readers())).result;
    assert.deepEqual(gone.sources.map((s) => s.state), ["no_longer_supports"]);
    assert.equal(gone.verdict, "flagged");
    assert.equal(gone.claims[0].verdict, "flagged");
    assert.match(gone.sources[0].detail ?? "", /no longer states quote "The ongoing charge is 0\.45%.*0\.45% \(c1\), 0\.52% \(c1\)/);
    assert.deepEqual((await verifyRun(ctx.db.database, run.runId)).problems, [], "each check is one more fact in the run's stream");
  });

  test("an invented number and advice language in the answer are flagged; a judgment is marked", async () => {
    const run = await webRun((answer) => {
      answer.summary = "The charge falls to 0.45%. You should buy the fund before the cut.";
      answer.sections[0].claims[0].text = "The ongoing charge is 0.45% a year, down from 0.62%.";
      answer.sections[0].claims.push({ text: "A 5% position in the fund suits a cautious investor.", basis: "judgment", citations: [] } as never);
    });
    const { result } = await checkRun(ctx.store, run.runId, readers());
    assert.equal(result.verdict, "flagged");
    const [fee, judgment] = result.claims;
    assert.equal(fee.verdict, "flagged");
    assert.deepEqual(fee.unsupportedNumbers, ["0.62%"]);
    assert.equal(judgment.verdict, "flagged", "position advice");
    assert.deepEqual(result.advice.map((a) => [a.where, a.rule]), [["summary", result.advice[0].rule], ["c2", "position size"]]);
    assert.match(result.advice[0].sentence, /You should buy the fund/);
  });

  test("a judgment without advice is marked as resting on no evidence, not flagged", async () => {
    const run = await webRun((answer) => {
      answer.sections[0].claims.push({ text: "The fee matters most to long holders.", basis: "judgment", citations: [] } as never);
    });
    const { result } = await checkRun(ctx.store, run.runId, readers());
    assert.equal(result.verdict, "supported");
    assert.deepEqual(result.claims.map((c) => c.verdict), ["supported", "no_evidence"]);
  });

  test("a local file read by read_file and changed since is found changed", async () => {
    const note = "Holdings: 212 stocks.\nTurnover was 31% last year.";
    const runtime = runtimeWith(
      ctx.store,
      {
        main: main("Write the note notes.txt (212 stocks, 31% turnover), read it back and quote it.", "document-reader", ["write_file", "read_file"]),
        child: quotingChild(
          [
            { tool: "write_file", input: { path: "notes.txt", content: note } },
            { tool: "read_file", input: { path: "notes.txt" } },
          ],
          "Turnover was 31% last year.",
        ),
      },
      { tools: new ToolRegistry().register(...createWorkspaceTools()), blobs: createDatabaseBlobStore(ctx.db.database.db), workspaceRoot: workspaces },
    );
    const run = await runtime.startRun("What does the note say?");
    assert.equal((await within(20_000, run.result)).kind, "answer");
    await sealRun(ctx.store, run);
    const clean = (await checkRun(ctx.store, run.runId, readers())).result;
    assert.equal(clean.verdict, "supported", JSON.stringify(clean));
    assert.deepEqual(clean.sources.map((s) => [s.url, s.state]), [["workspace:notes.txt", "unchanged"]]);

    const events = await ctx.store.readRun(run.runId);
    const child = events.find((e) => e.type === "executor_admitted" && e.data.role === "child")!.metadata.executorId;
    await writeFile(join(workspaceDirFor(workspaces, run.runId, child), "notes.txt"), "Holdings: 212 stocks.\nTurnover was 28% last year.");
    const changed = (await checkRun(ctx.store, run.runId, readers())).result;
    assert.deepEqual(changed.sources.map((s) => s.state), ["no_longer_supports"]);
    assert.equal(changed.verdict, "flagged");
  });
});
