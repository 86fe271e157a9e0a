import { NotFoundError } from "../../core/errors.ts";
import type { Database } from "../../db/index.ts";
import { DamagedRunError, damageOfRun } from "../../db/quarantine.ts";
import { foldRun, runView } from "../../projections/index.ts";
import { type PagedRun, type RunSummary, SUMMARY_STATUSES } from "../../runs/index.ts";
import { runViewOf } from "./runViewOf.ts";
import type { RunView } from "./runsPort.ts";

/**
 * The shape of the views kept in ariadne_run_summaries (migration 0019): bump it
 * when RunView or runViewOf changes what a run looks like, and every kept view
 * is built again from its run's events on its next read.
 */
export const VIEW_VERSION = 1;

/**
 * The API's views of a page of runs (runs/listRuns.ts): a run's kept summary
 * as stored, else its events folded (runViewOf), and those a reader may keep
 * (SUMMARY_STATUSES, no live owner, no event that could still commit before
 * them) returned to be stored. A quarantined run (db/quarantine.ts) is listed
 * from its row, its `reason` naming the stream and version that cannot be
 * read; read alone (`damaged: "refuse"`) it is a DamagedRunError.
 */
export function pagedViews(database: Database, runs: readonly PagedRun[], damaged: "list" | "refuse"): { views: RunView[]; keep: RunSummary[] } {
  const keep: RunSummary[] = [];
  const views = runs.map((run) => {
    const damage = damageOfRun(database, run.runId);
    if (damage) {
      const error = new DamagedRunError(damage[0]!);
      if (damaged === "refuse") throw error;
      return { ...runViewOf(run, runView(foldRun([]), { ownerLive: run.ownerLive })), reason: error.message };
    }
    if (run.summary) return run.summary as RunView;
    if (run.events.length === 0) throw new NotFoundError(`run ${run.runId} has no events in this store; check the id (ariadne prints it when a run starts)`);
    const view = runViewOf(run, runView(foldRun(run.events), { ownerLive: run.ownerLive }));
    if (run.settled && !run.ownerLive && SUMMARY_STATUSES.includes(run.status)) keep.push({ runId: run.runId, status: run.status, lastPosition: view.lastPosition, view });
    return view;
  });
  return { views, keep };
}
