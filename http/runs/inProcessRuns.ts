import { Runtime, limitsGovernance, type Governance } from "../../actors/index.ts";
import { AriadneError } from "../../core/errors.ts";
import type { Database } from "../../db/index.ts";
import type { EventStore } from "../../events/index.ts";
import { type Env, createModel, resolveModels } from "../../models/index.ts";
import { listProfiles } from "../../profiles/index.ts";
import { offlineResearchModel } from "../../scenarios/offlineResearch.ts";
import { DELEGATE_TOOL, ToolRegistry, createCorpusTools } from "../../tools/index.ts";
import { foldRunView } from "./foldRunView.ts";
import { FINAL_STATES, type CancelOutcome, type RunState, type RunView, type RunsPort, type SubmitRunInput } from "./runsPort.ts";

/** The Runtime's defaults (actors/runtime.ts): an API caller may lower them, never raise them. */
const CAP_CEILINGS = { maxTurns: 12, maxToolCalls: { main: 40, child: 25 }, maxDepth: 1 };

export interface InProcessRunsOptions {
  store: EventStore;
  /** ANTHROPIC_API_KEY and ARIADNE_MODEL_*: the real model when a key is set, else the scripted offline one. */
  env?: Env;
  /** false (`--no-workers`): this process executes nothing, so submissions are refused until runs/ queues them. */
  workers?: boolean;
  profilesDir?: string;
  /** Delay per scripted model reply, so tests can catch a run in flight. */
  scriptedLatencyMs?: number;
}

/**
 * INTERIM adapter of the RunsPort, to be replaced at merge by one over runs/
 * (submitRun, the runs table with its tenant column, leases, cancel requests).
 * Runs execute in this process on a Runtime each; the tenant of a run is kept
 * in `ariadne_run_tenants`; views are folded from the log (foldRunView, to be
 * replaced by projections/).
 */
export function createInProcessRuns(options: InProcessRunsOptions): RunsPort {
  const { store } = options;
  const database: Database = store.database;
  const env = options.env ?? {};
  const live = new Map<string, { runtime: Runtime; mainExecutorId: string; done: Promise<unknown> }>();
  // A final run's view never changes again, so it is kept (bounded) instead of re-folded per read.
  const finalViews = new Map<string, RunView>();
  const owners = new Map<string, string>();

  async function owner(runId: string): Promise<string | null> {
    const known = owners.get(runId);
    if (known) return known;
    const row = await database.db.selectFrom("ariadne_run_tenants").select("tenant").where("run_id", "=", runId).executeTakeFirst();
    if (row) remember(owners, runId, row.tenant);
    return row?.tenant ?? null;
  }

  async function view(runId: string, tenant: string): Promise<RunView | null> {
    const cached = finalViews.get(runId);
    if (cached) return cached;
    const v = foldRunView(runId, tenant, await store.readRun(runId));
    if (v && FINAL_STATES.includes(v.state)) remember(finalViews, runId, v);
    return v;
  }

  async function get(scope: string | null, runId: string): Promise<RunView | null> {
    const tenant = await owner(runId);
    if (tenant === null || (scope !== null && scope !== tenant)) return null;
    return view(runId, tenant);
  }

  function runtimeFor(input: SubmitRunInput): { runtime: Runtime; scripted: boolean } {
    const real = createModel(env);
    const names = resolveModels(env, input.models ?? {});
    const model = real ?? offlineResearchModel({ latencyMs: options.scriptedLatencyMs });
    const caps = input.caps ?? {};
    return {
      scripted: !real,
      runtime: new Runtime({
        store,
        models: { main: model, child: model },
        modelNames: real ? { main: names.main, child: names.child } : { main: "scripted:main", child: "scripted:child" },
        tools: new ToolRegistry().register(...createCorpusTools()),
        profilesDir: options.profilesDir,
        maxDepth: caps.maxDepth,
        limits: { main: definedOnly(caps.main), child: definedOnly(caps.child) },
        governance: input.allowedProfiles ? allowProfiles(input.allowedProfiles) : limitsGovernance,
      }),
    };
  }

  return {
    owner,
    get,
    async submit(input, tenant) {
      if (options.workers === false) {
        throw new AriadneError("NO_WORKERS", 503, "this server runs with --no-workers and cannot execute runs yet; start it without --no-workers");
      }
      await checkSubmission(input, options.profilesDir);
      const { runtime } = runtimeFor(input);
      const handle = await runtime.startRun(input.question, input.context ?? "");
      await database.db.insertInto("ariadne_run_tenants").values({ run_id: handle.runId, tenant }).execute();
      remember(owners, handle.runId, tenant);
      const done = handle.result.catch(() => {}).finally(() => live.delete(handle.runId));
      live.set(handle.runId, { runtime, mainExecutorId: handle.mainExecutorId, done });
      return (await view(handle.runId, tenant))!;
    },
    async list(scope, page, state) {
      const runs: RunView[] = [];
      let cursor = page.cursor ? decodeCursor(page.cursor) : null;
      // Without a state column the filter is applied to folded views, a chunk at a time (interim).
      for (let round = 0; round < 20 && runs.length < page.limit; round++) {
        let query = database.db.selectFrom("ariadne_run_tenants").select(["run_id", "tenant", "created_at"]);
        if (scope !== null) query = query.where("tenant", "=", scope);
        if (cursor) {
          const c = cursor;
          query = query.where((eb) =>
            eb.or([eb("created_at", "<", c.at), eb.and([eb("created_at", "=", c.at), eb("run_id", "<", c.id)])]),
          );
        }
        const rows = await query.orderBy("created_at", "desc").orderBy("run_id", "desc").limit(page.limit).execute();
        for (const row of rows) {
          cursor = { at: new Date(row.created_at), id: row.run_id };
          const v = await view(row.run_id, row.tenant);
          if (v && (!state || v.state === state)) runs.push(v);
          if (runs.length === page.limit) break;
        }
        if (rows.length < page.limit) return { runs, next: null };
      }
      return { runs, next: runs.length === page.limit && cursor ? encodeCursor(cursor) : null };
    },
    async cancel(scope, runId, executorId): Promise<CancelOutcome> {
      const run = await get(scope, runId);
      if (!run) return { kind: "not_found" };
      const target = executorId ?? run.mainExecutorId;
      const node = findNode(run.executors, target);
      if (!node) return { kind: "not_found" };
      if (node.status !== "running") return { kind: "already_final", run };
      // INTERIM: cancels the driver hosted here (rebuilding it from the log if this process did not
      // start it). Replaced at merge by a recorded cancel request (Runtime.requestCancel / runs/ cancelRun).
      const runtime = live.get(runId)?.runtime ?? runtimeFor({ question: run.question }).runtime;
      await runtime.requestCancel({
        runId,
        executorId,
        reason: executorId ? "cancelled by an operator through the API (executor)" : "cancelled by an operator through the API",
        by: "operator",
      });
      return { kind: "requested", run: (await view(runId, run.tenant))! };
    },
    async close() {
      await Promise.all([...live.values()].map((r) => r.done));
    },
  };
}

/** Bad submissions are refused before anything is written. */
async function checkSubmission(input: SubmitRunInput, profilesDir?: string): Promise<void> {
  const problems: string[] = [];
  for (const role of ["main", "child"] as const) {
    const caps = input.caps?.[role];
    if (caps?.maxTurns !== undefined && caps.maxTurns > CAP_CEILINGS.maxTurns) problems.push(`caps.${role}.maxTurns may be at most ${CAP_CEILINGS.maxTurns}`);
    if (caps?.maxToolCalls !== undefined && caps.maxToolCalls > CAP_CEILINGS.maxToolCalls[role]) {
      problems.push(`caps.${role}.maxToolCalls may be at most ${CAP_CEILINGS.maxToolCalls[role]}`);
    }
  }
  // No Reviewer executes in this build; asking for one must not silently get none.
  if (input.reviewer && input.reviewer !== "off") problems.push(`reviewer "${input.reviewer}" is not available on this server yet; use "off"`);
  if (input.caps?.maxDepth !== undefined && input.caps.maxDepth > CAP_CEILINGS.maxDepth) problems.push(`caps.maxDepth may be at most ${CAP_CEILINGS.maxDepth}`);
  if (input.allowedProfiles) {
    const known = (await listProfiles(profilesDir)).map((p) => p.id);
    const unknown = input.allowedProfiles.filter((p) => !known.includes(p));
    if (unknown.length) problems.push(`allowedProfiles: unknown ${unknown.join(", ")} (known: ${known.join(", ")})`);
  }
  if (problems.length) throw new AriadneError("UNPROCESSABLE", 422, problems.join("; "));
}

/** Refuses delegations to profiles the run does not allow; the model is told which it may use. */
function allowProfiles(allowed: string[]): Governance {
  return {
    beforeModelCall: limitsGovernance.beforeModelCall,
    afterModelCall: limitsGovernance.afterModelCall,
    async beforeToolCall(state, call) {
      const profile = (call.input as { profile?: unknown } | null)?.profile;
      if (call.name === DELEGATE_TOOL && typeof profile === "string" && !allowed.includes(profile)) {
        return { ok: false, limit: "delegation_fan_out", reason: `profile "${profile}" is not allowed in this run; allowed: ${allowed.join(", ")}`, events: [] };
      }
      return limitsGovernance.beforeToolCall(state, call);
    },
  };
}

function findNode(node: RunView["executors"], id: string): RunView["executors"] | null {
  if (node.id === id) return node;
  for (const c of node.children) {
    const found = findNode(c, id);
    if (found) return found;
  }
  return null;
}

function definedOnly<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= 2000) map.delete(map.keys().next().value!);
  map.set(key, value);
}

const encodeCursor = (c: { at: Date; id: string }) => Buffer.from(JSON.stringify([c.at.toISOString(), c.id])).toString("base64url");

function decodeCursor(text: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    const date = new Date(at);
    if (typeof id === "string" && !Number.isNaN(date.getTime())) return { at: date, id };
  } catch {}
  throw new AriadneError("VALIDATION", 400, "cursor is not one this API returned; pass `next` from the previous page");
}

export type { RunState };
