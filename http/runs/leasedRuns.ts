import type { KeyObject } from "node:crypto";
import { AriadneError, NotFoundError, isAriadneError, isValidationError } from "../../core/errors.ts";
import type { EventStore } from "../../events/index.ts";
import type { Caps } from "../../governance/index.ts";
import type { Env } from "../../models/index.ts";
import { foldRun, projectRun, runView } from "../../projections/index.ts";
import { type AskedCaps, type RunCursor, type RunPlan, cancelRun, listRuns, planRun, readListedRun, submitRun } from "../../runs/index.ts";
import { HttpProblem } from "../problem.ts";
import { type RunRow, runViewOf } from "./runViewOf.ts";
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
 * lease; views are the row plus the run projection; a cancel is runs/cancelRun
 * (a request to the live host, or a takeover when there is none).
 */
export function createLeasedRuns(options: LeasedRunsOptions): RunsPort {
  const { store } = options;
  const database = store.database;
  const env = options.env ?? {};
  const cancel = cancelRun({ database, store, sealKey: options.sealKey });
  // A finished run's row and view never change again: kept (bounded), so reading one is neither a
  // query nor a projection.
  const finished = new Map<string, { tenant: string | null; view: RunView }>();

  async function view(row: RunRow): Promise<RunView> {
    const cached = finished.get(row.runId);
    if (cached) return cached.view;
    return keep(row, runViewOf(row, await projectRun(store, row.runId, { ownerLive: row.ownerLive })));
  }

  function keep(row: RunRow, v: RunView): RunView {
    if (row.state === "finished" && FINAL_STATES.includes(v.state)) remember(finished, row.runId, { tenant: row.tenant, view: v });
    return v;
  }

  async function get(scope: string | null, runId: string): Promise<RunView | null> {
    const known = finished.get(runId);
    if (known) return scope === null || known.tenant === scope ? known.view : null;
    const row = await readListedRun(database, runId, scope);
    return row ? view(row) : null;
  }

  return {
    get,
    async owner(runId) {
      const known = finished.get(runId);
      if (known) return known.tenant;
      return (await readListedRun(database, runId, null))?.tenant ?? null;
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
      const listed = await listRuns(database, { scope, ...filters, after });
      // A page costs two queries whatever its size: the rows, then every uncached run's events at
      // once, each folded in memory (a query per run made a cold page of 200 cost seconds).
      const uncached = listed.runs.filter((row) => !finished.has(row.runId)).map((row) => row.runId);
      const events = await store.readRuns(uncached);
      const runs = listed.runs.map((row) => {
        const cached = finished.get(row.runId);
        if (cached) return cached.view;
        const folded = events.get(row.runId) ?? [];
        if (folded.length === 0) throw new NotFoundError(`run ${row.runId} has no events in this store; check the id (ariadne prints it when a run starts)`);
        return keep(row, runViewOf(row, runView(foldRun(folded), { ownerLive: row.ownerLive })));
      });
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

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= 2000) map.delete(map.keys().next().value!);
  map.set(key, value);
}

const encodeCursor = (c: RunCursor) => Buffer.from(JSON.stringify([c.us, c.id])).toString("base64url");

function decodeCursor(text: string): RunCursor {
  try {
    const [us, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof us === "string" && /^\d{1,18}$/.test(us) && typeof id === "string" && id.length <= 128) return { us, id };
  } catch {}
  throw new AriadneError("VALIDATION", 400, "cursor is not one this API returned; pass `next_cursor` from the previous page");
}
