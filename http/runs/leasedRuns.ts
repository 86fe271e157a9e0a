import type { KeyObject } from "node:crypto";
import { AriadneError, isAriadneError, isValidationError } from "../../core/errors.ts";
import type { EventStore } from "../../events/index.ts";
import type { Caps } from "../../governance/index.ts";
import type { Env } from "../../models/index.ts";
import { type AskedCaps, type PagedRun, type RunCursor, type RunPlan, cancelRun, listRuns, planRun, readListedRun, readRunTenant, storeRunSummaries, submitRun } from "../../runs/index.ts";
import { damageOfRun } from "../../db/quarantine.ts";
import { VIEW_VERSION, pagedViews } from "./pagedViews.ts";
import { HttpProblem } from "../problem.ts";
import { FINAL_STATES, type CancelOutcome, type RunView, type RunsPort, type SubmitRunInput } from "./runsPort.ts";

export interface LeasedRunsOptions {
  store: EventStore;
  /** ANTHROPIC_API_KEY set: runs use the configured model; else the scripted offline scenario. */
  env?: Env;
  profilesDir?: string;
  /** The most a run may ask for; default the configured caps. */
  maximum?: Caps;
  /** Recorded with every run submitted (RunOptions.tags): hints for whoever hosts it, e.g. a test's scriptedLatencyMs. */
  tags?: Record<string, string>;
  /** The key a run ended by a cancel is sealed with. */
  sealKey?: KeyObject;
}

/**
 * The RunsPort over runs/: a submission is a row in ariadne_runs (with its
 * tenant) and a run_submitted fact, executed by whichever worker takes its
 * lease; a view is the row plus its kept summary, or the run projection folded
 * from the events read with the row (pagedViews.ts); a cancel is runs/cancelRun
 * (a request to the live host, or a takeover when there is none).
 */
export function createLeasedRuns(options: LeasedRunsOptions): RunsPort {
  const { store } = options;
  const database = store.database;
  const env = options.env ?? {};
  const cancel = cancelRun({ database, store, sealKey: options.sealKey });

  // A finished run's view never changes again: kept in memory too (bounded), so reading one alone,
  // as a client polling it does, is not even a query.
  const finished = new Map<string, { tenant: string; view: RunView }>();

  /** The page's views, built from the one query that read it; views a later read may reuse are kept. */
  async function viewsOf(runs: readonly PagedRun[], damaged: "list" | "refuse"): Promise<RunView[]> {
    const { views, keep } = pagedViews(database, runs, damaged);
    // The kept views are a cache: a write that fails (a full disk, a read-only replica) costs a later read a
    // fold, never this answer.
    await storeRunSummaries(database, keep, VIEW_VERSION).catch(() => undefined);
    runs.forEach((row, i) => {
      if (row.state === "finished" && FINAL_STATES.includes(views[i]!.state) && !damageOfRun(database, row.runId)) remember(finished, row.runId, { tenant: row.tenant, view: views[i]! });
    });
    return views;
  }

  async function get(scope: string | null, runId: string): Promise<RunView | null> {
    const known = finished.get(runId);
    if (known) return scope === null || known.tenant === scope ? known.view : null;
    const row = await readListedRun(database, runId, scope, VIEW_VERSION);
    return row ? (await viewsOf([row], "refuse"))[0]! : null;
  }

  return {
    get,
    async owner(runId) {
      return finished.get(runId)?.tenant ?? readRunTenant(database, runId);
    },
    async submit(input, tenant, keyId) {
      // A question without a configured model is refused, never answered by a scripted scenario.
      const plan = await planOf(input, { modelConfigured: !!env.ANTHROPIC_API_KEY, nothingAsked: "refuse", maximum: options.maximum, profilesDir: options.profilesDir }, options.tags);
      const { runId } = await submitRun(store, { ...plan, tenant, keyId });
      return (await get(tenant, runId))!;
    },
    async list(scope, query) {
      const { cursor, ...filters } = query;
      const after = cursor ? decodeCursor(cursor) : undefined;
      // One query: each run's kept view, or its events to fold when it has none still true (runs/listRuns.ts).
      const listed = await listRuns(database, { scope, ...filters, after, summaryVersion: VIEW_VERSION });
      const runs = await viewsOf(listed.runs, "list");
      return { runs, next: listed.next ? encodeCursor(listed.next) : null };
    },
    async cancel(scope, runId, executorId): Promise<CancelOutcome> {
      const run = await get(scope, runId);
      if (!run) return { kind: "not_found" };
      const node = findNode(run.executors, executorId ?? run.mainExecutorId);
      if (!node) return { kind: "not_found" };
      if (FINAL_STATES.includes(run.state) || node.status !== "running") return { kind: "already_final", run };
      try {
        await cancel({
          runId,
          executorId,
          reason: executorId ? "cancelled by an operator through the API (executor)" : "cancelled by an operator through the API",
          by: "operator",
        });
      } catch (e) {
        // Finished between the read and the cancel.
        if (isAriadneError(e) && e.code === "RUN_FINISHED") return { kind: "already_final", run: (await get(scope, runId))! };
        throw e;
      }
      return { kind: "requested", run: (await get(scope, runId))! };
    },
  };
}

/**
 * The submission through runs/planRun, the same check the command line makes;
 * a refused field is 422 naming its place in the body (`body.caps.main.maxTurns`).
 */
async function planOf(input: SubmitRunInput, context: Parameters<typeof planRun>[1], tags: Record<string, string> = {}): Promise<RunPlan> {
  const { caps, ...rest } = input;
  try {
    return await planRun({ ...rest, caps: askedCaps(caps), tags }, context);
  } catch (e) {
    if (!isValidationError(e)) throw e;
    const issues = e.issues.map((i) => ({ path: ["body", ...apiPath(i.path)], message: i.message }));
    throw new HttpProblem(422, "UNPROCESSABLE", issues.map((i) => `${i.path.slice(1).join(".")}: ${i.message}`).join("; "), { issues });
  }
}

/** The API's caps onto the caps a run may ask for: `maxDepth` is delegation's. */
function askedCaps(caps: SubmitRunInput["caps"]): AskedCaps {
  const { maxDepth, ...roles } = caps ?? {};
  return maxDepth === undefined ? roles : { ...roles, delegation: { maxDepth } };
}

/** Cap paths back to the API body's (caps.delegation.maxDepth is caps.maxDepth). */
const apiPath = (path: readonly (string | number)[]) => (path[0] === "caps" && path[1] === "delegation" ? ["caps", ...path.slice(2)] : [...path]);

function findNode(node: RunView["executors"], id: string): RunView["executors"] | null {
  if (node.id === id) return node;
  for (const c of node.children) {
    const found = findNode(c, id);
    if (found) return found;
  }
  return null;
}

const encodeCursor = (c: RunCursor) => Buffer.from(JSON.stringify([c.us, c.id])).toString("base64url");

function decodeCursor(text: string): RunCursor {
  try {
    const [us, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof us === "string" && /^\d{1,18}$/.test(us) && typeof id === "string" && id.length <= 128) return { us, id };
  } catch {}
  throw new AriadneError("VALIDATION", 400, "cursor is not one this API returned; pass `next_cursor` from the previous page");
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= 2000) map.delete(map.keys().next().value!);
  map.set(key, value);
}
