import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { OfferedUnreadableError, offeredBytes } from "../../actors/request/offeredSpecs.ts";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { type RecordedEvent, createEventStore, sealRun, verifyRun } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import { DEFAULT_PROFILE_DIR } from "../../profiles/index.ts";
import { ToolRegistry, createCorpusTools } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { delegatingMain, delegation, handoffInput, handoffReply, ofType, runtimeWith, useReply, within } from "./fixtures.ts";

/**
 * What an executor's model was offered at admission (its system prompt and
 * tool specs, hosted tools included) is data in the log: a tool description
 * and a profile file edited after a run was recorded change nothing of its
 * transcripts, and a changed byte of what was recorded is caught.
 */
const EDIT = "EDITED after the run was recorded";

/** The corpus tools with search_corpus's description edited, as a later release might ship them. */
const editedRegistry = () =>
  new ToolRegistry().register(...createCorpusTools().map((t) => (t.name === "search_corpus" ? { ...t, spec: { ...t.spec, description: `${t.spec.description} ${EDIT}` } } : t)));

test("the recorded form is the set's RFC 8785 canonical JSON, whichever way it is built", () => {
  const tools = [...createCorpusTools().map((t) => t.spec), { input_schema: { type: "object", properties: { b: { type: "string" }, a: { type: "number" } } }, name: "z", description: "é \u2028 \"q\"" }];
  const offered = { system: "You are \"Main\".\n", tools };
  assert.equal(new TextDecoder().decode(offeredBytes(offered)), canonicalJson(offered));
  const withServer = { ...offered, serverTools: [{ name: "web_search", type: "web_search_20250305", max_uses: 3, allowed_domains: ["b.test", "a.test"] }] };
  assert.equal(new TextDecoder().decode(offeredBytes(withServer)), canonicalJson(withServer));
  assert.equal(new TextDecoder().decode(offeredBytes(offered)), new TextDecoder().decode(offeredBytes(structuredClone(offered))), "kept texts are the same bytes");
});

/** Models never called: the runtime only reads. */
const idle = () => ({ main: new ScriptedModel({ name: "main", script: [] }), child: new ScriptedModel({ name: "child", script: [] }) });

forEachEngine("what the model was offered is recorded at admission", (ctx) => {
  let dir: string;
  let runId: string;
  let admitted: RecordedEvent<"executor_admitted">[];
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ariadne-offered-"));
    for (const name of await readdir(DEFAULT_PROFILE_DIR)) if (name.endsWith(".md")) await copyFile(join(DEFAULT_PROFILE_DIR, name), join(dir, name));
    const child = new ScriptedModel({ name: "child", script: [useReply("search_corpus", { query: "ADIV fees" }), handoffReply(handoffInput("[web-explorer] looked it up."))] });
    const main = new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What are ADIV's fees?", "web-explorer")]) });
    const runtime = runtimeWith(ctx.store, { main, child }, { profilesDir: dir });
    const run = await runtime.startRun("What does ADIV cost?");
    assert.equal((await within(10_000, run.result)).kind, "answer");
    await sealRun(ctx.store, run);
    runId = run.runId;
    admitted = ofType(await ctx.store.readRun(runId), "executor_admitted");
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("each admission names its offered set by hash; executors offered the same set share one blob", async () => {
    assert.equal(admitted.length, 2);
    for (const a of admitted) assert.match(a.data.offered ?? "", /^[0-9a-f]{64}$/);
    const [mainAdmitted, childAdmitted] = admitted;
    assert.notEqual(mainAdmitted!.data.offered, childAdmitted!.data.offered);
    const stored = JSON.parse(new TextDecoder().decode((await ctx.store.blobs.get(childAdmitted!.data.offered!))!)) as { system: string; tools: { name: string }[] };
    assert.ok(stored.system.includes("# Web explorer"), "the Child's system prompt carries its bound method");
    assert.deepEqual(stored.tools.map((t) => t.name), [...childAdmitted!.data.grantedTools, "handoff"]);
    // A second Child of the same profile and grant is offered the same set: the same hash, nothing new stored.
    const again = runtimeWith(ctx.store, { main: new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What are ADIV's fees?", "web-explorer")]) }), child: new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[web-explorer] again."))] }) }, { profilesDir: dir });
    const second = await again.startRun("What does ADIV cost?");
    await within(10_000, second.result);
    const secondChild = ofType(await ctx.store.readRun(second.runId), "executor_admitted").find((e) => e.data.role === "child")!;
    assert.equal(secondChild.data.offered, childAdmitted!.data.offered);
  });

  test("a server tool the model sends in place of an offered spec (Anthropic's web_search) is recorded with the set", async () => {
    const corpus = createCorpusTools();
    const search = corpus.find((t) => t.name === "search_corpus")!;
    const tools = new ToolRegistry().register(...corpus, { ...search, name: "web_search", spec: { ...search.spec, name: "web_search" } });
    const webSearch = { type: "web_search_20250305" as const, max_uses: 3 };
    const main = Object.assign(new ScriptedModel({ name: "main", policy: delegatingMain() }), { webSearch });
    const run = await runtimeWith(ctx.store, { main, child: new ScriptedModel({ name: "child", script: [] }) }, { tools, profilesDir: dir }).startRun("What does ADIV cost?");
    await within(10_000, run.result);
    const [admission] = ofType(await ctx.store.readRun(run.runId), "executor_admitted");
    assert.ok(admission!.data.grantedTools.includes("web_search"));
    const stored = JSON.parse(new TextDecoder().decode((await ctx.store.blobs.get(admission!.data.offered!))!)) as { serverTools?: unknown[] };
    assert.deepEqual(stored.serverTools, [{ name: "web_search", ...webSearch }]);
  });

  test("a tool description and a profile file edited after recording: every transcript still verifies, as offered", async () => {
    const profile = join(dir, "web-explorer.md");
    const original = await readFile(profile);
    await writeFile(profile, Buffer.concat([original, Buffer.from(`\n6. ${EDIT}.\n`)]));
    try {
      const edited = editedRegistry();
      assert.ok(edited.specsFor(["search_corpus"])[0]!.description.includes(EDIT), "the edit is in the host's tools");
      const later = runtimeWith(ctx.store, idle(), { tools: edited, profilesDir: dir });
      let turns = 0;
      for (const a of admitted) {
        const t = await later.transcript(a.metadata.executorId);
        assert.deepEqual(t.turns.filter((x) => !x.digestMatches).map((x) => x.turn), [], `${a.data.role}: every request digest matches`);
        assert.equal(t.offered, a.data.offered);
        assert.ok(!JSON.stringify(t.turns.map((x) => x.request)).includes(EDIT), `${a.data.role}: the requests are as offered, not as edited`);
        turns += t.turns.length;
      }
      assert.ok(turns >= 4, `${turns} requests rebuilt`);
    } finally {
      await writeFile(profile, original);
    }
  });

  test("seeded: a changed byte of a recorded spec set is caught by verify and refused by the transcript", async () => {
    const child = admitted.find((a) => a.data.role === "child")!;
    const sha256 = child.data.offered!;
    assert.deepEqual((await verifyRun(ctx.db.database, runId)).problems, [], "the run verifies before the byte is changed");
    const corrupt = (from: string, to: string) =>
      ctx.db.database.db.transaction().execute(async (trx) => {
        await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
        await sql`UPDATE ariadne_source_blobs SET bytes = convert_to(replace(convert_from(bytes, 'UTF8'), ${from}, ${to}), 'UTF8') WHERE sha256 = ${sha256}`.execute(trx);
        await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
      });
    await corrupt("search_corpus", "search_corpuz");
    try {
      const result = await verifyRun(ctx.db.database, runId);
      assert.equal(result.ok, false);
      const problem = result.problems.find((p) => p.eventId === child.eventId);
      assert.match(problem?.reason ?? JSON.stringify(result.problems), new RegExp(`blob ${sha256} \\(what executor ${child.metadata.executorId} was offered at admission: its system prompt and tool specs\\) was changed`));
      // A fresh store (no set kept in this process) reads the blob and refuses it, naming what changed.
      const fresh = runtimeWith(createEventStore(ctx.db.database), idle(), { profilesDir: dir });
      await assert.rejects(fresh.transcript(child.metadata.executorId), (e: unknown) => {
        assert.ok(e instanceof OfferedUnreadableError, String(e));
        assert.match(e.message, new RegExp(`what executor ${child.metadata.executorId} was offered at admission \\(blob ${sha256}, its system prompt and tool specs\\) was changed`));
        return true;
      });
    } finally {
      await corrupt("search_corpuz", "search_corpus");
    }
    assert.deepEqual((await verifyRun(ctx.db.database, runId)).problems, [], "restored");
  });
});
