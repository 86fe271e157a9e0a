import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { Runtime } from "../../actors/index.ts";
import { createEventStore } from "../../events/index.ts";
import { DEFAULT_PROFILE_DIR } from "../../profiles/index.ts";
import { type BuildRuntime, findRun, hostRun, leaseOwner, resumeRun, runStatus, submitRun, takeLease, transcriptOf } from "../../runs/index.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { gate, ofType, within } from "../actors/fixtures.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";

forEachEngine("resuming a run whose bound profile file changed, or whose recorded offer cannot be read", (ctx) => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ariadne-profiles-"));
    for (const name of await readdir(DEFAULT_PROFILE_DIR)) if (name.endsWith(".md")) await copyFile(join(DEFAULT_PROFILE_DIR, name), join(dir, name));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  const deps = (buildRuntime: BuildRuntime) => ({ database: ctx.db.database, store: ctx.store, buildRuntime, ttlMs: 60_000 });

  test("resume stops before writing to any executor, leaves the run interrupted with the reason and nothing live; with the bytes restored it finishes", async () => {
    // Given: the offline run interrupted once its three Children were admitted, over a copy of the profiles
    const admitted = gate();
    let children = 0;
    const hosting = await scenarioHosting(ctx.db.database);
    const build: BuildRuntime = (store) =>
      new Runtime({
        store,
        profilesDir: dir,
        models: { main: offlineResearchModel({ latencyMs: 20 }), child: offlineResearchModel({ latencyMs: 20 }) },
        modelNames: { main: "scripted:main", child: "scripted:child" },
        ...hosting,
        onEvent: (e) => {
          if (e.type === "executor_admitted" && e.data.role === "child" && ++children === 3) admitted.open();
        },
      });
    const { runId } = await submitRun(ctx.store, { question: OFFLINE_QUESTION, options: { mode: "offline" } });
    const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
    const hosted = hostRun(deps(build), lease!);
    await admitted.opened;
    assert.equal((await hosted.stop("interrupt", 30_000)).kind, "interrupted");
    const executorEvents = async () => (await ctx.store.readRun(runId)).filter((e) => e.streamId.startsWith("executor-"));
    const before = await executorEvents();

    // When: a bound profile file changed (which changes nothing: the method bound is read from the log), and what
    // one Child was offered (its system prompt and tool specs) has a byte changed in the log, and the run is resumed
    // by another process (its own store: nothing kept from the admissions)
    const file = join(dir, "web-explorer.md");
    const original = await readFile(file);
    await writeFile(file, Buffer.concat([original, Buffer.from("\n6. Prefer third-party summaries.\n")]));
    const child = ofType(before, "executor_admitted").find((e) => e.data.profile?.id === "web-explorer")!;
    const offered = child.data.offered!;
    const corrupt = (from: string, to: string) =>
      ctx.db.database.db.transaction().execute(async (trx) => {
        await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
        await sql`UPDATE ariadne_source_blobs SET bytes = convert_to(replace(convert_from(bytes, 'UTF8'), ${from}, ${to}), 'UTF8') WHERE sha256 = ${offered}`.execute(trx);
        await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
      });
    await corrupt("# Web explorer", "# Web explorez");
    const another = () => ({ ...deps(build), store: createEventStore(ctx.db.database) });
    const refused = await within(20_000, (await resumeRun(another(), runId)).done);

    // Then: nothing was written to any executor, the run is interrupted naming what could not be read
    assert.equal(refused.kind, "released", JSON.stringify(refused));
    const unreadable = new RegExp(`what executor ${child.metadata.executorId} was offered at admission \\(blob ${offered}, its system prompt and tool specs\\) was changed`);
    assert.match((refused as { reason: string }).reason, unreadable);
    await new Promise((r) => setTimeout(r, 200)); // a runner left live would write meanwhile
    assert.deepEqual((await executorEvents()).map((e) => e.eventId), before.map((e) => e.eventId), "no executor event was written");
    assert.equal((await findRun(ctx.db.database, runId)).state, "interrupted");
    const status = await runStatus(ctx.db.database, ctx.store, runId);
    assert.equal(status.state, "interrupted");
    assert.equal(status.executors!.state, "running", "Main is not failed");
    const interruptions = ofType(await ctx.store.readRun(runId), "run_interrupted");
    assert.match(interruptions.at(-1)!.data.reason, unreadable);

    // And: with the recorded bytes back (the profile file still edited), resume finishes the run, its Children
    // working by the method they were bound to
    await corrupt("# Web explorez", "# Web explorer");
    const resumed = await within(30_000, (await resumeRun(another(), runId)).done);
    assert.equal(resumed.kind === "finished" && resumed.outcome.kind, "answer", JSON.stringify(resumed));
    assert.equal((await runStatus(ctx.db.database, ctx.store, runId)).state, "settled");
    const transcript = await transcriptOf(ctx.store, child.metadata.executorId);
    assert.ok(transcript.turns.length > 0 && transcript.turns.every((t) => t.digestMatches && t.request.system.includes("# Web explorer")));
    assert.ok(!transcript.turns.some((t) => t.request.system.includes("Prefer third-party summaries")));
    await writeFile(file, original);
  });
});
