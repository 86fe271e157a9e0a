import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { verifyCommand } from "../../cli/verifyCommand.ts";
import { describeVerification } from "../../events/describeVerification.ts";
import { keyFingerprint } from "../../core/keyFingerprint.ts";
import { type RecordedEvent, runStreamId, sealRun, verifyRun, executorStreamId } from "../../events/index.ts";
import { signSeal } from "../../events/signSeal.ts";
import { OFFLINE_QUESTION, offlineResearchModel } from "../../scenarios/etfOverlap/etfOverlapScenario.ts";
import { childrenOf, ofType, runtimeWith } from "../actors/fixtures.ts";
import { type EngineContext, forEachEngine } from "../support/forEachEngine.ts";
import { scenarioHosting } from "../support/scenarioHosting.ts";
import { deleteLast, removeEvents, rewriteFrom } from "./forgery.ts";

/** The key the runs are sealed with (held outside the database), and a forger's own. */
const ours = generateKeyPairSync("ed25519");
const theirs = generateKeyPairSync("ed25519");

forEachEngine("a forged run does not verify against the seal's signing key", (ctx) => {
  const verify = (runId: string) => verifyRun(ctx.db.database, runId, { publicKey: ours.publicKey });

  test("an intact run sealed with the key verifies, its signature checked; without a public key the signature is reported unchecked", async () => {
    const run = await sealedRun(ctx);
    const checked = await verify(run.runId);
    assert.deepEqual(checked.problems, []);
    assert.deepEqual(checked.signature, { state: "valid", keyId: keyFingerprint(ours.publicKey) });
    const unchecked = await verifyRun(ctx.db.database, run.runId);
    assert.equal(unchecked.ok, true);
    assert.deepEqual(unchecked.signature, { state: "unchecked", keyId: keyFingerprint(ours.publicKey) });
  });

  test("the seal deleted (its stream rewound): a run whose Main ended has no seal, with a key or without", async () => {
    const run = await sealedRun(ctx);
    await deleteLast(ctx, runStreamId(run.runId));
    for (const result of [await verify(run.runId), await verifyRun(ctx.db.database, run.runId)]) {
      assert.equal(result.ok, false);
      assert.equal(result.sealed, null);
      const settled = ofType(run.events, "settled").find((e) => e.metadata.executorId === run.mainExecutorId)!;
      assert.equal(result.problems[0].eventId, settled.eventId);
      assert.match(result.problems[0].reason, /Main ended \(settled\) but the run has no seal/);
    }
  });

  test("the seal recomputed over the heads and left unsigned is refused where a key is configured", async () => {
    const run = await sealedRun(ctx);
    await rewriteSeal(ctx, run, ({ signature: _, ...unsigned }) => unsigned);
    const result = await verify(run.runId);
    assert.equal(result.ok, false);
    assert.deepEqual(result.signature?.state, "invalid");
    assert.match(result.problems[0].reason, /the seal is not signed, but seals are checked against key [0-9a-f]{64}/);
    // Without a key, an unsigned seal is said to be unsigned, not hidden.
    assert.deepEqual((await verifyRun(ctx.db.database, run.runId)).signature, { state: "unsigned" });
  });

  test("the seal re-signed with another key is refused, naming both keys", async () => {
    const run = await sealedRun(ctx);
    await rewriteSeal(ctx, run, (data) => ({ ...data, signature: signSeal(theirs.privateKey, run.runId, data.rootHash) }));
    const result = await verify(run.runId);
    assert.equal(result.ok, false);
    assert.match(result.problems[0].reason, new RegExp(`signed by key ${keyFingerprint(theirs.publicKey)}, not by the configured key ${keyFingerprint(ours.publicKey)}`));
  });

  test("the probe: a Child's handoff summary edited, the Child and Main's handoff_consumed re-chained, run_sealed deleted and the run stream re-chained: caught", async () => {
    const run = await sealedRun(ctx);
    const forged = "FORGED: ADIV charges nothing.";
    await forgeHandoff(ctx, run, forged);
    assert.ok(ofType(await ctx.store.readRun(run.runId), "handoff_consumed").some((e) => e.data.handoff.summary === forged), "the forged summary is what a reader sees");
    await deleteLast(ctx, runStreamId(run.runId));
    const withoutSeal = await verify(run.runId);
    assert.equal(withoutSeal.ok, false);
    assert.ok(withoutSeal.problems.some((p) => /has no seal/.test(p.reason)), JSON.stringify(withoutSeal.problems));
    if (ctx.db.url) {
      // As `ariadne verify RUN` says it, with the public key configured: exit 1, not "intact · not sealed".
      const said: string[] = [];
      assert.equal(await verifyCommand({ url: ctx.db.url, runId: run.runId, publicKey: ours.publicKey, json: false, out: (l) => said.push(l) }), 1);
      assert.match(said[0], /NOT intact: .*Main ended \(settled\) but the run has no seal/);
    }
  });

  test("the probe, with the seal recomputed over the forged heads and signed by the forger's key: caught", async () => {
    const run = await sealedRun(ctx);
    await forgeHandoff(ctx, run, "FORGED again.");
    const now = await verify(run.runId);
    assert.ok(now.problems.some((p) => /rewritten after the seal/.test(p.reason)), "the old seal no longer matches");
    const heads = now.streams.filter((s) => s.streamId.startsWith("executor-")).map((s) => ({ streamId: s.streamId, version: s.version, hash: s.hash! }));
    await rewriteSeal(ctx, run, () => ({ rootHash: now.rootHash, heads: heads.sort((a, b) => (a.streamId < b.streamId ? -1 : 1)), signature: signSeal(theirs.privateKey, run.runId, now.rootHash) }));
    const result = await verify(run.runId);
    assert.equal(result.ok, false);
    assert.deepEqual(result.problems.map((p) => p.reason), [`the seal is signed by key ${keyFingerprint(theirs.publicKey)}, not by the configured key ${keyFingerprint(ours.publicKey)}`]);
  });

  test("a whole handoff removed (the Child's handoff and end, Main's handoff_consumed), streams re-chained, the seal recomputed: caught with no key", async () => {
    const run = await sealedRun(ctx);
    const child = executorStreamId(run.children[0]);
    const committed = (await ctx.store.readStream(child)).find((e) => e.type === "handoff_committed")!;
    await removeEvents(ctx, child, (e) => e.streamVersion >= committed.streamVersion);
    await removeEvents(ctx, executorStreamId(run.mainExecutorId), (e) => e.type === "handoff_consumed" && (e.data as { handoffEventId: string }).handoffEventId === committed.eventId);
    await resealUnsigned(ctx, run);
    const result = await verifyRun(ctx.db.database, run.runId);
    assert.equal(result.ok, false, "chains, references and the recomputed seal all agree; the run's end does not");
    assert.ok(result.problems.some((p) => new RegExp(`executor ${run.children[0]} \\(child\\) never ended, yet the run is sealed`).test(p.reason)), JSON.stringify(result.problems));
    assert.ok(result.problems.some((p) => /delegate call .* has no outcome/.test(p.reason)));
  });

  test("only Main's handoff_consumed removed and re-chained, the seal recomputed: the Child's committed handoff was never consumed", async () => {
    const run = await sealedRun(ctx);
    const committed = (await ctx.store.readStream(executorStreamId(run.children[0]))).find((e) => e.type === "handoff_committed")!;
    await removeEvents(ctx, executorStreamId(run.mainExecutorId), (e) => e.type === "handoff_consumed" && (e.data as { handoffEventId: string }).handoffEventId === committed.eventId);
    await resealUnsigned(ctx, run);
    const result = await verifyRun(ctx.db.database, run.runId);
    assert.equal(result.ok, false);
    assert.ok(result.problems.some((p) => p.eventId === committed.eventId && /settled without consuming it/.test(p.reason)), JSON.stringify(result.problems));
  });

  test("verify RUN with no key says what it checked and what it could not: never \"intact\" for a seal it did not check (exit 4)", async () => {
    const run = await sealedRun(ctx);
    const said = async (publicKey: typeof ours.publicKey | null, root?: string) => {
      const told = describeVerification(await verifyRun(ctx.db.database, run.runId, { publicKey, expectedRoot: root }), root !== undefined);
      if (ctx.db.url) {
        // As the command prints it, with the same exit code.
        const lines: string[] = [];
        assert.equal(await verifyCommand({ url: ctx.db.url, runId: run.runId, publicKey, root, json: false, out: (l) => lines.push(l) }), told.exit);
        assert.deepEqual(lines, told.lines);
      }
      return { exit: told.exit, text: told.lines.join("\n") };
    };
    const unkeyed = await said(null);
    assert.equal(unkeyed.exit, 4);
    assert.match(unkeyed.text, /^run \S+: structure intact, authenticity not checked: pass --key/);
    assert.doesNotMatch(unkeyed.text, /: intact/);
    assert.match(unkeyed.text, new RegExp(`signed by key ${keyFingerprint(ours.publicKey)}: NOT checked`));
    const keyed = await said(ours.publicKey);
    assert.equal(keyed.exit, 0);
    assert.match(keyed.text, /^run \S+: intact · .*seal signature verified/);
    const rooted = await said(null, run.seal.rootHash);
    assert.equal(rooted.exit, 0, "the root kept from the answer authenticates it too");
    assert.match(rooted.text, /^run \S+: intact · .*root hash as expected/);
    // The seal's claim to be unsigned, against the host's configured key: refused, exit 1.
    await rewriteSeal(ctx, run, ({ signature: _, ...unsigned }) => unsigned);
    const forged = await said(ours.publicKey);
    assert.equal(forged.exit, 1);
    assert.match(forged.text, /NOT intact: .*the seal is not signed, but seals are checked against key/);
    const forgedUnkeyed = await said(null);
    assert.equal(forgedUnkeyed.exit, 4, "with no key configured, an unsigned seal is not called intact either");
    assert.match(forgedUnkeyed.text, /seal unsigned: nothing shows who wrote it/);
  });

  test("a signature kept while the sealed root hash was changed does not verify", async () => {
    const run = await sealedRun(ctx);
    const other = await sealedRun(ctx);
    // The forger moves another run's valid seal signature onto this one: it signs another run id and root.
    await rewriteSeal(ctx, run, (data) => ({ ...data, signature: other.seal.signature! }));
    const result = await verify(run.runId);
    assert.equal(result.ok, false);
    assert.match(result.problems[0].reason, /signature does not verify with key/);
  });
});

type SealData = RecordedEvent<"run_sealed">["data"];

/** The offline research run, sealed with our key. */
async function sealedRun(ctx: EngineContext) {
  const runtime = runtimeWith(ctx.store, { main: offlineResearchModel(), child: offlineResearchModel() }, await scenarioHosting(ctx.db.database));
  const handle = await runtime.startRun(OFFLINE_QUESTION);
  assert.equal((await handle.result).kind, "answer");
  const run = { runId: handle.runId, mainExecutorId: handle.mainExecutorId };
  await sealRun(ctx.store, run, { signingKey: ours.privateKey });
  const events = await ctx.store.readRun(run.runId);
  const seal = ofType(events, "run_sealed").at(-1)!.data;
  assert.ok(seal.signature, "sealed with a signature");
  return { ...run, events, seal, children: childrenOf(events, run.mainExecutorId) };
}

/** The forger's reseal: the seal recomputed, unsigned, over the heads as they now are. */
async function resealUnsigned(ctx: EngineContext, run: { runId: string }) {
  const now = await verifyRun(ctx.db.database, run.runId);
  const heads = now.streams.filter((s) => s.streamId.startsWith("executor-")).map((s) => ({ streamId: s.streamId, version: s.version, hash: s.hash! }));
  await rewriteSeal(ctx, run, () => ({ rootHash: now.rootHash, heads: heads.sort((a, b) => (a.streamId < b.streamId ? -1 : 1)) }));
}

/** Rewrites the run's last seal in place and re-chains the run stream. */
async function rewriteSeal(ctx: EngineContext, run: { runId: string }, change: (data: SealData) => Partial<SealData> & Pick<SealData, "rootHash" | "heads">) {
  const stream = await ctx.store.readStream(runStreamId(run.runId));
  const seal = stream.findLast((e) => e.type === "run_sealed")!;
  await rewriteFrom(ctx, seal.streamId, seal.streamVersion, (data) => change(data as SealData));
}

/** Edits the first Child's handoff summary, re-chains the Child, then Main's handoff_consumed (its copy and hash) and Main. */
async function forgeHandoff(ctx: EngineContext, run: { mainExecutorId: string; children: string[] }, summary: string) {
  const child = executorStreamId(run.children[0]);
  const committed = (await ctx.store.readStream(child)).find((e): e is RecordedEvent<"handoff_committed"> => e.type === "handoff_committed")!;
  await rewriteFrom(ctx, child, committed.streamVersion, (data) => ({ ...(data as object), handoff: { ...committed.data.handoff, summary } }));
  const newHash = (await ctx.store.readStream(child)).find((e) => e.eventId === committed.eventId)!.hash;
  const main = executorStreamId(run.mainExecutorId);
  const consumed = (await ctx.store.readStream(main)).find((e): e is RecordedEvent<"handoff_consumed"> => e.type === "handoff_consumed" && e.data.handoffEventId === committed.eventId)!;
  await rewriteFrom(ctx, main, consumed.streamVersion, (data) => ({ ...(data as object), handoff: { ...consumed.data.handoff, summary }, handoffHash: newHash }));
}
