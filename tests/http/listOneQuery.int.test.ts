import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { type KyselyPlugin, type RootOperationNode, sql } from "kysely";
import { createEventStore } from "../../events/index.ts";
import { VIEW_VERSION } from "../../http/runs/pagedViews.ts";
import { createLeasedRuns } from "../../http/runs/leasedRuns.ts";
import { runViewOf } from "../../http/runs/runViewOf.ts";
import type { RunView } from "../../http/runs/runsPort.ts";
import { projectRun } from "../../projections/index.ts";
import { appendRunFact, listRuns, releaseLease, takeLease } from "../../runs/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, openHarness, waitForFinal, bearer, postJson } from "./harness.ts";

type Kind = "queued" | "running" | "ownerGone" | "interrupted" | "cancelled";

/** Counts the statements a port sends: the first word of each (SELECT, WITH, INSERT, ...). */
function countingStatements(): { plugin: KyselyPlugin; statements: string[] } {
  const statements: string[] = [];
  const word = (node: RootOperationNode) => (node.kind === "RawNode" ? node.sqlFragments.join(" ").trim().split(/\s+/)[0]!.toUpperCase() : node.kind);
  return {
    statements,
    plugin: {
      transformQuery: ({ node }) => (statements.push(word(node)), node),
      transformResult: async ({ result }) => result,
    },
  };
}

/**
 * A page of `GET /v1/runs` is one query (issue 33, item 7): each run's kept
 * view (migration 0019) while it is still true, else its events folded. Given
 * runs in a mix of states (settled by a worker; queued; held by a live owner;
 * held by an owner whose lease ran out; interrupted; cancelled while queued),
 * each page read by a freshly made port (nothing in memory) is one statement
 * (the first read also keeps the views it built: one more), whatever the page
 * size and filter; and its items equal each run's view projected alone from
 * its events (the way pages were built before: a projection per run), also
 * after runs change under views already kept.
 */
forEachEngine("GET /v1/runs: one query a page, each item the run's own view", (ctx) => describe("one query", () => {
  let h: Harness;
  let tenant: string;
  const settled: string[] = [];
  before(async () => {
    const worker = await openHarness(ctx.store);
    tenant = worker.tenant("onequery");
    const key = await worker.key("client", tenant);
    for (let i = 0; i < 2; i++) {
      const res = await worker.app.request("/v1/runs", postJson(key, { offline: true }));
      settled.push(((await res.json()) as { id: string }).id);
    }
    for (const id of settled) await waitForFinal(worker.app, key, id);
    await worker.close();
    // No worker from here: runs stay in the states the test puts them in.
    h = await openHarness(ctx.store, { workers: false });
  });
  after(() => h?.close());

  /** A fresh port over a store whose statements are counted. */
  const freshPort = () => {
    const counted = countingStatements();
    const database = { ...ctx.store.database, db: ctx.store.database.db.withPlugin(counted.plugin) };
    return { runs: createLeasedRuns({ store: createEventStore(database) }), statements: counted.statements };
  };

  async function makeRun(kind: Kind): Promise<string> {
    const run = await h.runs.submit({ offline: true, context: kind }, tenant);
    const database = ctx.store.database;
    if (kind === "running") assert.ok(await takeLease(database, { owner: "live-host", ttlMs: 600_000, runId: run.id }));
    if (kind === "ownerGone") assert.ok(await takeLease(database, { owner: "gone-host", ttlMs: 1, runId: run.id }));
    if (kind === "interrupted") await releaseLease(database, (await takeLease(database, { owner: "stopping-host", ttlMs: 600_000, runId: run.id }))!, "interrupted");
    if (kind === "cancelled") await cancelQueued(run.id);
    return run.id;
  }

  async function cancelQueued(runId: string): Promise<void> {
    const key = await h.key("client", tenant);
    assert.equal((await h.app.request(`/v1/runs/${runId}/cancel`, postJson(key, {}))).status, 202);
  }

  /** Each run of the tenant as it was read before: its row, and a projection of its own events. */
  async function projectedAlone(): Promise<Map<string, RunView>> {
    const { runs } = await listRuns(ctx.store.database, { scope: tenant, limit: 1000, summaryVersion: -1 });
    const views = new Map<string, RunView>();
    for (const row of runs) views.set(row.runId, runViewOf(row, await projectRun(ctx.store, row.runId, { ownerLive: row.ownerLive })));
    return views;
  }

  /** Every page, following the cursor, each from a fresh port: the items and the statements each page took. */
  async function readPages(limit: number, state?: RunView["state"]): Promise<{ items: RunView[]; statements: string[][] }> {
    const items: RunView[] = [];
    const statements: string[][] = [];
    let cursor: string | undefined;
    do {
      const port = freshPort();
      const page = await port.runs.list(tenant, { limit, cursor, state });
      items.push(...page.runs);
      statements.push(port.statements);
      cursor = page.next ?? undefined;
    } while (cursor);
    return { items, statements };
  }

  test("pages of any size and filter are one statement each (plus one keeping new views), and equal the runs projected alone", async () => {
    const kinds = fc.constantFrom<Kind>("queued", "running", "ownerGone", "interrupted", "cancelled");
    const states = fc.constantFrom<RunView["state"] | undefined>(undefined, "queued", "running", "settled", "cancelled");
    await fc.assert(
      fc.asyncProperty(fc.array(kinds, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 4 }), states, fc.constantFrom("none", "cancel", "fact"), async (made, limit, state, later) => {
        const ids = [];
        for (const kind of made) ids.push(await makeRun(kind));
        const check = async () => {
          const expected = await projectedAlone();
          for (const read of ["first", "again"] as const) {
            const { items, statements } = await readPages(limit, state);
            const wanted = [...expected.values()].filter((v) => state === undefined || v.state === state);
            // Newest first, as listRuns ordered the rows expected was built from.
            assert.deepEqual(items, wanted);
            for (const s of statements) {
              assert.equal(s.filter((w) => w !== "INSERT").length, 1, `a page is one query (${read} read): ${s.join(", ")}`);
              if (read === "again") assert.deepEqual(s, ["WITH"], "read again, every view still true is as kept: nothing to keep");
            }
          }
        };
        await check();
        // Runs change under views already kept: a queued run is cancelled (its row's status and its log
        // change), or a fact is appended to it (its log alone: its row still says queued).
        const queued = ids.filter((_, i) => made[i] === "queued")[0];
        if (later !== "none" && queued) {
          if (later === "cancel") await cancelQueued(queued);
          else await appendRunFact(ctx.store, { runId: queued, mainExecutorId: (await h.runs.get(tenant, queued))!.mainExecutorId }, { type: "run_interrupted", data: { reason: "a fact after the view was kept", by: "operator", inFlight: [] } });
          await check();
        }
      }),
      // Each later change at least once, whatever the seed.
      { numRuns: 8, examples: [[["queued"], 2, undefined, "fact"], [["queued", "interrupted"], 1, undefined, "cancel"]] },
    );
  });

  test("a kept view is the one the page returns: the query reads it, it does not refold the run", async () => {
    const runId = settled[0]!;
    const key = await h.key("client", tenant);
    const item = async () => ((await (await h.app.request(`/v1/runs?limit=200`, { headers: bearer(key) })).json()) as { data: RunView[] }).data.find((r) => r.id === runId)!;
    assert.equal((await item()).question, (await h.runs.get(tenant, runId))!.question);
    await sql`UPDATE ariadne_run_summaries SET view = jsonb_set(view, '{reason}', '"as kept"') WHERE run_id = ${runId} AND view_version = ${VIEW_VERSION}`.execute(ctx.store.database.db);
    assert.equal((await item()).reason, "as kept");
  });
}));
