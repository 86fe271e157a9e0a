import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sealRun, verifyRun } from "../../events/index.ts";
import { ScriptedModel, type ScriptedReply } from "../../models/index.ts";
import { runTools } from "../../runs/host/runTools.ts";
import { turnsTaken } from "../../scenarios/requestView.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { type CorpusServer, type SearchBackend, corpusUrlMap, serveCorpus } from "../../tools/index.ts";
import { ofType, runtimeWith, useReply, within } from "../actors/fixtures.ts";
import { corpusDir } from "../support/corpus.ts";
import { forEachEngine } from "../support/forEachEngine.ts";

const ASKED = "https://pages.corpus.test/001/";
const UNSEEN = "https://pages.corpus.test/wikipedia/";

/** A search backend with one known hit, so the test needs no index. */
const oneHit: SearchBackend = { name: "fixed", search: async () => ({ hits: [{ title: "Mozilla - Wikipedia", url: UNSEEN, snippet: "Mozilla is a free-software community" }] }) };

const answer: ScriptedReply = {
  content: [{ type: "tool_use", name: "answer", input: { summary: "read", sections: [{ heading: "Pages", claims: [{ text: "Two pages were read.", basis: "judgment", citations: [] }] }] } }],
};

/** Main: fetch a URL nobody showed it, then the question's URL, then search, then the search hit. */
const steps = [useReply("web_fetch", { url: UNSEEN }), useReply("web_fetch", { url: ASKED }), useReply("web_search", { query: "mozilla" }), useReply("web_fetch", { url: UNSEEN }), answer];

let corpus: CorpusServer;
before(async () => {
  corpus = await serveCorpus(corpusDir());
});
after(() => corpus?.close());

forEachEngine("web_fetch in a run fetches only what the run has seen", (ctx) => {
  test("an unseen URL is refused as not_reachable; the question's URL and a search hit are fetched, each a source whose blobs verify", async () => {
    const main = new ScriptedModel({ name: "main", policy: (request) => steps[turnsTaken(request)] ?? answer });
    const tools = runTools({ web: { mapUrl: corpusUrlMap(corpus.origin), search: oneHit } });
    const runtime = runtimeWith(ctx.store, { main, child: main }, { tools, blobs: createDatabaseBlobStore(ctx.db.database.db) });
    const run = await runtime.startRun(`What does ${ASKED} say about code coverage?`);
    const outcome = await within(20_000, run.result);
    await sealRun(ctx.store, run); // as its host would: an ended run without its seal does not verify
    assert.equal(outcome.kind, "answer");
    const events = await ctx.store.readRun(run.runId);

    const [refused] = ofType(events, "tool_failed");
    assert.equal(refused.data.reason, "not_reachable");
    assert.match(refused.data.message, new RegExp(`^web_fetch refused \\(not_reachable\\): ${UNSEEN} has not been seen in this run by you`));

    const completed = ofType(events, "tool_completed");
    assert.deepEqual(completed.map((e) => e.data.tool), ["web_fetch", "web_search", "web_fetch"]);
    assert.deepEqual(completed.map((e) => e.data.sources[0]?.kind), ["web_page", "search_results", "web_page"]);
    assert.equal(completed[0].data.sources[0].url, ASKED);
    assert.deepEqual(completed[1].data.links, [UNSEEN]);
    assert.equal(completed[2].data.sources[0].url, UNSEEN);
    assert.ok(completed[2].data.links!.length > 1, "the page's links are recorded: they become reachable");

    const verified = await verifyRun(ctx.db.database, run.runId);
    assert.deepEqual(verified.problems, []);
  });
});
