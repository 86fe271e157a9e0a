import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "../../models/index.ts";
import { DEFAULT_PROFILE_DIR, ProfileChangedError, boundProfileBefore28 } from "../../profiles/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { executorStreamId } from "../../events/index.ts";
import {
  admittedData,
  delegatingMain,
  delegation,
  eventually,
  handoffInput,
  handoffReply,
  ofType,
  runtimeWith,
  stalledModel,
  streamOf,
  within,
} from "./fixtures.ts";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

forEachEngine("profile binding on redispatch", (ctx) => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ariadne-profiles-"));
    for (const name of await readdir(DEFAULT_PROFILE_DIR)) {
      if (name.endsWith(".md")) await copyFile(join(DEFAULT_PROFILE_DIR, name), join(dir, name));
    }
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("a Child is bound to its profile's bytes, kept in the log: an edited file changes nothing of its resume", async () => {
    const file = join(dir, "web-explorer.md");
    const original = await readFile(file);

    // First process: Main delegates, the Child is admitted, and the process "stops" during the Child's first model call.
    const stalledChild: string[] = [];
    const first = runtimeWith(
      ctx.store,
      {
        main: new ScriptedModel({ name: "main", policy: delegatingMain([delegation("What are ADIV's fees?", "web-explorer")]) }),
        child: stalledModel((r) => stalledChild.push(r.system)),
      },
      { profilesDir: dir },
    );
    const run = await first.startRun("What does ADIV cost?");
    await eventually(() => stalledChild.length === 1);
    const [admitted] = ofType(await ctx.store.readRun(run.runId), "executor_admitted").filter((e) => e.data.role === "child");
    const childId = admitted.metadata.executorId;
    assert.deepEqual(admitted.data.profile, { id: "web-explorer", version: "2", sha256: sha256(original) });
    assert.ok(stalledChild[0].includes("# Web explorer"));
    // The bound profile resolves by its hash from the log: its file bytes are a blob under the binding's sha256.
    assert.deepEqual(Buffer.from((await ctx.store.blobs.get(admitted.data.profile!.sha256))!), original);
    const before = await streamOf(ctx.store, childId);
    assert.deepEqual(before.map((e) => e.type), ["executor_admitted"]);

    // The method is edited while the Child is down.
    const edited = Buffer.concat([original, Buffer.from("\n6. Prefer third-party summaries.\n")]);
    await writeFile(file, edited);
    const childModel = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[web-explorer] resumed with the bound method."))] });
    const second = runtimeWith(ctx.store, { main: stalledModel(), child: childModel }, { profilesDir: dir });

    // The Child resumes with the method it was offered, read from the log, not the edited file.
    const outcome = await within(10_000, second.resume(childId));
    assert.equal(outcome.kind, "handoff");
    assert.equal(childModel.requests.length, 1);
    assert.equal(childModel.requests[0].system, stalledChild[0]);
    assert.ok(!childModel.requests[0].system.includes("Prefer third-party summaries"));
    const stream = await streamOf(ctx.store, childId);
    assert.deepEqual(stream.map((e) => e.type), ["executor_admitted", "turn", "handoff_committed", "settled"]);
    assert.ok((await second.transcript(childId)).turns.every((t) => t.digestMatches));
    await writeFile(file, original);
  });

  test("an admission recorded before what was offered was (offered null) resolves its profile by hash: a shipped version, or the file; a changed file of the user's own refuses resume, the bound bytes resume", async () => {
    // A version Ariadne shipped is found by its hash in profiles/shippedBefore28/ whatever the file says now.
    const shipped = await readFile(join(DEFAULT_PROFILE_DIR, "general.md"));
    await writeFile(join(dir, "general.md"), Buffer.concat([shipped, Buffer.from("\n6. Edited.\n")]));
    try {
      const resolved = await boundProfileBefore28({ id: "general", version: "1", sha256: sha256(shipped) }, dir);
      assert.equal(resolved.sha256, sha256(shipped));
      assert.ok(!resolved.content.includes("Edited"));
    } finally {
      await writeFile(join(dir, "general.md"), shipped);
    }
    // A profile of the user's own, never shipped: only its file can hold the bound bytes.
    const file = join(dir, "own-method.md");
    const original = Buffer.from("---\nid: own-method\nversion: 1\ntitle: Own method\nrequested_tools: []\nsummary: A method of the user's own.\n---\n# Own method\n\nLook it up.\n");
    await writeFile(file, original);
    const binding = { id: "own-method", version: "1", sha256: sha256(original) };
    const childId = `before-offered-${Date.now()}`;
    const data = admittedData("child", { profile: binding, grantedTools: ["search_corpus"], parentExecutorId: null, parentToolUseId: null, depth: 0 });
    await ctx.store.append(executorStreamId(childId), 0, [{ type: "executor_admitted", data: { ...data, role: "child", offered: null }, metadata: { runId: `run-${childId}`, executorId: childId } }]);
    await writeFile(file, Buffer.concat([original, Buffer.from("\n6. Edited.\n")]));
    const childModel = new ScriptedModel({ name: "child", script: [handoffReply(handoffInput("[own-method] resumed with the bound method."))] });
    const runtime = runtimeWith(ctx.store, { main: stalledModel(), child: childModel }, { profilesDir: dir });
    await assert.rejects(runtime.resume(childId), (e: unknown) => {
      assert.ok(e instanceof ProfileChangedError);
      assert.equal(e.code, "PROFILE_CHANGED");
      assert.deepEqual(e.binding, binding);
      assert.match(e.message, /restore the bound file or start a new delegation/);
      return true;
    });
    assert.deepEqual((await streamOf(ctx.store, childId)).map((e) => e.type), ["executor_admitted"], "a refused resume writes nothing");
    await writeFile(file, original);
    assert.equal((await within(10_000, runtime.resume(childId))).kind, "handoff");
    assert.ok(childModel.requests[0]!.system.includes("Look it up."));
    assert.ok((await runtime.transcript(childId)).turns.every((t) => t.digestMatches));
  });
});
