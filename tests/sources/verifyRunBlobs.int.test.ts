import { test } from "node:test";
import assert from "node:assert/strict";
import { type RawBuilder, sql } from "kysely";
import { z } from "zod";
import { sealRun, verifyRun } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { type SourceRecord, sha256Hex } from "../../sources/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { ofType, runtimeWith, useReply, within } from "../actors/fixtures.ts";
import { type EngineContext, forEachEngine, uniqueId } from "../support/forEachEngine.ts";

/** A tool that reads a "note" from outside the run: its bytes go to ctx.blobs, its result names them as a source. */
const noteTool = defineTool({
  name: "read_note",
  description: "Reads the note.",
  input: z.object({ text: z.string() }),
  effect: "read_only",
  async run({ text }, ctx) {
    if (!ctx.blobs || !ctx.now) throw new Error("no blob store or clock was lent to the tool");
    const raw = new TextEncoder().encode(`<p>${text}</p>`);
    const plain = new TextEncoder().encode(text);
    const source: SourceRecord = {
      kind: "data",
      url: `blob:${sha256Hex(raw)}`,
      contentType: "text/html",
      fetchedAt: ctx.now().toISOString(),
      rawSha256: await ctx.blobs.put(raw),
      textSha256: await ctx.blobs.put(plain),
      bytes: raw.byteLength,
    };
    return { output: text, sources: [source], links: ["https://example.test/next"] };
  },
});

const answerReply = {
  content: [{ type: "tool_use" as const, name: "answer", input: { summary: "read", sections: [{ heading: "Note", claims: [{ text: "A note was read.", basis: "judgment", citations: [] }] }] } }],
};

forEachEngine("run verification checks the blobs its sources name", (ctx) => {
  async function givenRun() {
    const note = uniqueId("note");
    const main = new ScriptedModel({ name: "main", policy: (request) => (turnsTaken(request) === 0 ? useReply("read_note", { text: note }) : answerReply) });
    const runtime = runtimeWith(ctx.store, { main, child: main }, { tools: new ToolRegistry().register(noteTool), blobs: createDatabaseBlobStore(ctx.db.database.db) });
    const run = await runtime.startRun("Read the note.");
    await within(10_000, run.result);
    await sealRun(ctx.store, run); // as its host would: an ended run without its seal does not verify
    const events = await ctx.store.readRun(run.runId);
    const [completed] = ofType(events, "tool_completed");
    return { run, completed, note };
  }

  test("a tool's sources, links and fetched time are recorded with its outcome; verify finds every blob intact", async () => {
    const { run, completed, note } = await givenRun();
    assert.equal(completed.schemaVersion, 3);
    assert.equal(completed.data.sources.length, 1);
    assert.equal(completed.data.sources[0].textSha256, sha256Hex(note));
    assert.deepEqual(completed.data.links, ["https://example.test/next"]);
    const result = await verifyRun(ctx.db.database, run.runId);
    assert.deepEqual(result.problems, []);
  });

  test("a changed blob is named by its hash; a missing one too", async () => {
    const { run, completed } = await givenRun();
    const { rawSha256 } = completed.data.sources[0];
    await tamper(ctx, sql`UPDATE ariadne_source_blobs SET bytes = convert_to('forged', 'UTF8'), size = 6 WHERE sha256 = ${rawSha256}`);
    const result = await verifyRun(ctx.db.database, run.runId);
    assert.equal(result.ok, false);
    assert.equal(result.problems.length, 1);
    assert.equal(result.problems[0].eventId, completed.eventId);
    assert.match(result.problems[0].reason, new RegExp(`blob ${rawSha256} \\(the raw bytes of source blob:.*\\) was changed`));

    const other = await givenRun();
    const { textSha256 } = other.completed.data.sources[0];
    await tamper(ctx, sql`DELETE FROM ariadne_source_blobs WHERE sha256 = ${textSha256}`);
    const gone = await verifyRun(ctx.db.database, other.run.runId);
    assert.match(gone.problems[0]?.reason ?? "", new RegExp(`blob ${textSha256} .* is missing`));
  });
});

async function tamper(ctx: EngineContext, statement: RawBuilder<unknown>) {
  await ctx.db.database.db.transaction().execute(async (trx) => {
    await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
    await statement.execute(trx);
    await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
  });
}
