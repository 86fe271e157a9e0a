import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { z } from "zod";
import { sealRun, verifyRun, type RecordedEvent } from "../../events/index.ts";
import { quoteProblemsIn } from "../../events/quoteProblems.ts";
import { ScriptedModel } from "../../models/index.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { type SourceRecord, sha256Hex } from "../../sources/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { delegatingMain, delegation, handoffInput, handoffReply, ofType, runtimeWith, useReply, within } from "./fixtures.ts";
import { forEachEngine, uniqueId } from "../support/forEachEngine.ts";

const NOTE = "The ongoing charge falls from 0.38% to 0.29%\non 1 October 2026.";

/** A tool that reads a note from outside the run: its text is a blob, named as the result's source. */
const noteTool = defineTool({
  name: "read_note",
  description: "Reads the note.",
  input: z.object({ id: z.string() }),
  effect: "read_only",
  async run({ id }, ctx) {
    const text = `${NOTE}\n(note ${id})`;
    const bytes = new TextEncoder().encode(text);
    const sha = await ctx.blobs!.put(bytes);
    const source: SourceRecord = { kind: "data", url: `blob:${sha}`, contentType: "text/plain", fetchedAt: ctx.now!().toISOString(), rawSha256: sha, textSha256: sha, bytes: bytes.byteLength };
    return { output: text, sources: [source] };
  },
});

/** A Child that reads the note, hands off a quote its note does not hold, then (told why) the one it does. */
function childModel(id: string) {
  return new ScriptedModel({
    name: "child",
    policy: (request) => {
      const turn = turnsTaken(request);
      if (turn === 0) return useReply("read_note", { id });
      const readUse = request.messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).find((b) => b.type === "tool_use" && b.name === "read_note")!;
      const text = turn === 1 ? "falls from 0.38% to 0.19%" : "falls from 0.38% to 0.29%\non 1 October";
      const useId = (readUse as { id: string }).id;
      return handoffReply(handoffInput("Read the note.", [{ claim: "The charge falls.", evidence: { toolResults: [useId], citations: [], quotes: [{ toolUseId: useId, text }] }, confidence: "high" }]));
    },
  });
}

/** A Child whose every handoff quotes its note once rightly and once wrongly: its repairs run out. */
function stubbornChild(id: string) {
  return new ScriptedModel({
    name: "child",
    policy: (request) => {
      if (turnsTaken(request) === 0) return useReply("read_note", { id });
      const readUse = request.messages.flatMap((m) => (m.role === "assistant" ? m.content : [])).find((b) => b.type === "tool_use" && b.name === "read_note") as { id: string };
      const quotes = [{ toolUseId: readUse.id, text: "falls from 0.38%" }, { toolUseId: readUse.id, text: "rises to 0.41%" }];
      return handoffReply(handoffInput("Read the note.", [{ claim: "The charge falls.", evidence: { toolResults: [readUse.id], citations: [], quotes }, confidence: "high" }]));
    },
  });
}

forEachEngine("a handoff's quotes are checked against the stored text of its sources", (ctx) => {
  async function givenRun() {
    const id = uniqueId("note");
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What does the note say about the charge?", "general")]) });
    const runtime = runtimeWith(ctx.store, { main, child: childModel(id) }, { tools: new ToolRegistry().register(noteTool), blobs: createDatabaseBlobStore(ctx.db.database.db) });
    const run = await runtime.startRun("What does the note say?");
    await within(20_000, run.result);
    await sealRun(ctx.store, run);
    return { run, events: await ctx.store.readRun(run.runId), text: `${NOTE}\n(note ${id})` };
  }

  test("a quote its source does not contain is refused with a repair message; the repaired quote is committed with its blob and offsets", async () => {
    const { run, events, text } = await givenRun();
    const refused = ofType(events, "tool_failed").filter((e) => e.data.tool === "handoff");
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.data.reason, "rejected_result");
    assert.match(refused[0]!.data.message, /findings\[0\]\.evidence\.quotes\[0\]\.text: the quoted text does not occur verbatim in what tool call \S+ read \(source blob:/);
    const [committed] = ofType(events, "handoff_committed");
    assert.equal(committed!.data.forced, false);
    const quote = (committed!.data.handoff.findings as { evidence: { quotes: { text: string; source: { sha256: string; charStart: number; charEnd: number } }[] } }[])[0]!.evidence.quotes[0]!;
    assert.equal(quote.source.sha256, sha256Hex(text));
    assert.equal([...text].slice(quote.source.charStart, quote.source.charEnd).join(""), quote.text);
    assert.deepEqual((await verifyRun(ctx.db.database, run.runId)).problems, []);
  });

  test("repairs run out: the forced partial handoff keeps the quote found in the source, with its location, and drops the other", async () => {
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What does the note say about the charge?", "general")]) });
    const runtime = runtimeWith(ctx.store, { main, child: stubbornChild(uniqueId("note")) }, { tools: new ToolRegistry().register(noteTool), blobs: createDatabaseBlobStore(ctx.db.database.db) });
    const run = await runtime.startRun("What does the note say?");
    await within(20_000, run.result);
    const events = await ctx.store.readRun(run.runId);
    assert.ok(ofType(events, "tool_failed").filter((e) => e.data.tool === "handoff").length >= 2);
    const [committed] = ofType(events, "handoff_committed");
    assert.equal(committed!.data.forced, true);
    const finding = (committed!.data.handoff.findings as { evidence: { quotes: { text: string; source?: unknown }[] } }[])[0]!;
    assert.deepEqual(finding.evidence.quotes.map((q) => q.text), ["falls from 0.38%"]);
    assert.ok(finding.evidence.quotes[0]!.source, "located");
    assert.ok((committed!.data.handoff.caveats as string[]).some((c) => /quotes\[1\] dropped/.test(c)));
  });

  test("verify reports a quote that is not in its blob: a changed blob, or a quote re-written in the log", async () => {
    const { run, events } = await givenRun();
    const [committed] = ofType(events, "handoff_committed");
    const sha = (committed!.data.handoff.findings as { evidence: { quotes: { source: { sha256: string } }[] } }[])[0]!.evidence.quotes[0]!.source.sha256;
    await ctx.db.database.db.transaction().execute(async (trx) => {
      await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
      await sql`UPDATE ariadne_source_blobs SET bytes = convert_to(replace(convert_from(bytes, 'UTF8'), '0.29%', '0.19%'), 'UTF8') WHERE sha256 = ${sha}`.execute(trx);
      await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
    });
    const result = await verifyRun(ctx.db.database, run.runId);
    assert.equal(result.ok, false);
    assert.ok(result.problems.some((p) => /blob .* was changed/.test(p.reason)));
    const quoted = result.problems.find((p) => /quote findings\[0\]\.evidence\.quotes\[0\] of the handoff of \S+ is not in blob/.test(p.reason));
    assert.ok(quoted, JSON.stringify(result.problems));
    assert.equal(quoted.eventId, committed!.eventId);

    // A log re-chained by someone with the triggers off holds an edited quote: the blob still says otherwise.
    const forged = structuredClone(committed!) as RecordedEvent<"handoff_committed">;
    (forged.data.handoff.findings as { evidence: { quotes: { text: string }[] } }[])[0]!.evidence.quotes[0]!.text = "falls from 0.38% to 0.09%\non 1 October";
    const streams = new Map([["x", events.map((e) => (e.eventId === committed!.eventId ? forged : e))]]);
    const original = new Map([[sha, `${NOTE}`]]);
    const problems = quoteProblemsIn(streams, original);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!.reason, /is not in blob/);
    assert.deepEqual(quoteProblemsIn(new Map([["x", events]]), original), []);
  });
});
