import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { createEventStore } from "../../events/index.ts";
import { runWorker, runtimeFactory, submitRun } from "../../runs/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

/**
 * Ready to be distributed by run (docs/scaling.md): every statement a hosted
 * run sends to a run-scoped table or function names the run, so PostgreSQL
 * distributed by run_id (Citus) routes it to one node. The SQL is captured on
 * the wire (pg's Client.query) while a worker hosts the offline scenario under
 * its lease: appends, stream reads, the lease and heartbeat, the budget,
 * reminders, blobs, the seal.
 */

/** Tables holding a run's rows, to be distributed by run_id. */
const RUN_TABLES = ["ariadne_events", "ariadne_streams", "ariadne_runs", "ariadne_run_budgets", "ariadne_run_reminders"];
/** Functions over run tables, called with the run id as an argument (a Citus distribution argument). */
const RUN_FUNCTIONS = ["ariadne_append_batch", "ariadne_budget_reserve", "ariadne_budget_settle"];

/**
 * Statements on run tables that do not name the run, each on purpose. None is
 * made per turn: they fan out to every node on a distributed store.
 */
const GLOBAL_STATEMENTS: { pattern: RegExp; reason: string }[] = [
  {
    // runs/lease/takeLease.ts: the queue. A worker looks for the oldest takeable run across all runs, once per
    // run it starts (and per poll); the lease itself is then taken by run_id.
    pattern: /^SELECT run_id, state FROM ariadne_runs WHERE \(state = 'submitted'.*ORDER BY created_at/,
    reason: "the run queue: oldest takeable run across runs",
  },
  {
    // events/verifyStream.ts: verification reads a stream whole by stream_id, so a row whose run_id
    // column was rewritten is still read and named (not silently left out); once per run, at its seal.
    pattern: /^select .*"run_id", "executor_id", .*encode\("hash", 'hex'\) as "hash" from "ariadne_events" where "stream_id" = \$1 order by "stream_version"$/,
    reason: "verify: a stream's rows as stored, whatever their run_id column says",
  },
  {
    pattern: /^select "version", encode\(last_hash, 'hex'\) as "last_hash" from "ariadne_streams" where "stream_id" = \$1$/,
    reason: "verify: the stream head a deleted tail is noticed against",
  },
];

interface Sent {
  text: string;
  values: unknown[];
}

const flat = (values: unknown[]): unknown[] => values.flatMap((v) => (Array.isArray(v) ? flat(v) : [v]));
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();
/** The run tables and functions a statement reads or writes (LISTEN, UNLISTEN and NOTIFY name channels, not tables). */
const touches = (text: string, names: string[]) => (/^(LISTEN|UNLISTEN|NOTIFY)\b/i.test(text) ? [] : names.filter((n) => new RegExp(`\\b${n}\\b`).test(text)));

/** Whether a statement names the run: `run_id = $n` (or an INSERT's run_id column) bound to it, or a function argument. */
function namesRun(s: Sent, runId: string): boolean {
  if (!flat(s.values).includes(runId)) return false;
  if (touches(s.text, RUN_FUNCTIONS).length) return true;
  const bound = [...s.text.matchAll(/"?\brun_id"?\s*=\s*(?:ANY\()?\$(\d+)/g)].some((m) => flat([s.values[Number(m[1]) - 1]]).includes(runId));
  const inserted = /^insert into "?ariadne_\w+"? \(([^)]*)\)/i.exec(s.text)?.[1]?.includes("run_id") ?? false;
  return bound || inserted;
}

// On the wire of PostgreSQL (pg); declared where the engines under test include it, as forEachEngine does.
if (ENGINES.includes("postgres")) describe("hot-path SQL names the run (PostgreSQL)", () => {
  let db: TestDatabase;
  let runId: string;
  const sent: Sent[] = [];
  const workspaces = mkdtempSync(join(tmpdir(), "ariadne-runsql-"));

  before(async () => {
    db = await openTestDatabase("postgres");
    const store = createEventStore(db.database);
    const query = pg.Client.prototype.query;
    // Every statement of this process on the wire, with its bound values.
    pg.Client.prototype.query = function (this: pg.Client, q: unknown, ...rest: unknown[]) {
      const text = typeof q === "string" ? q : (q as { text?: string })?.text;
      const values = (Array.isArray(rest[0]) ? rest[0] : (q as { values?: unknown[] })?.values) ?? [];
      if (text) sent.push({ text: oneLine(text), values });
      return (query as (...a: unknown[]) => unknown).call(this, q, ...rest);
    } as typeof query;
    try {
      ({ runId } = await submitRun(store, { question: "Which holdings overlap between the two ETFs?", options: { mode: "offline" } }));
      const buildRuntime = runtimeFactory({}, { workspaceRoot: workspaces, corpusDir: sharedCorpusDir() });
      const { results } = await runWorker({ database: db.database, store, buildRuntime, pollMs: 50, idleExitMs: 200 });
      assert.deepEqual(results.map((r) => r.kind), ["finished"]);
    } finally {
      pg.Client.prototype.query = query;
    }
  });
  after(async () => {
    await db?.dispose();
    rmSync(workspaces, { recursive: true, force: true });
  });

  test("every statement on a run table or function names the run, except the listed global ones", () => {
    const onRuns = sent.filter((s) => touches(s.text, [...RUN_TABLES, ...RUN_FUNCTIONS]).length > 0);
    assert.ok(onRuns.some((s) => /ariadne_append_batch/.test(s.text)), "the scripted run appended");
    const unnamed = onRuns.filter((s) => !namesRun(s, runId) && !GLOBAL_STATEMENTS.some((g) => g.pattern.test(s.text)));
    assert.deepEqual([...new Set(unnamed.map((s) => s.text))], [], "statements that would fan out to every node");
  });

  test("each listed global statement was seen (the list names real statements, not stale ones)", () => {
    for (const g of GLOBAL_STATEMENTS) assert.ok(sent.some((s) => g.pattern.test(s.text)), `not seen: ${g.reason}`);
  });

  test("the hot path covers every run table and function", () => {
    const seen = new Set(sent.flatMap((s) => touches(s.text, [...RUN_TABLES, ...RUN_FUNCTIONS])));
    assert.deepEqual([...RUN_TABLES, ...RUN_FUNCTIONS].filter((n) => !seen.has(n)), []);
  });
});
