/**
 * The narrow port http/ needs from run lifecycle, implemented over runs/
 * (submitRun, the runs table, cancelRun) and projections/ (leasedRuns.ts).
 * Runs are executed by workers (runs/host/worker.ts), in `ariadne serve` or in
 * `ariadne worker` processes, never by the port itself.
 */
export interface RunsPort {
  /** Records a run for a tenant (queued for workers), naming the key that submitted it; answers with its view. */
  submit(input: SubmitRunInput, tenant: string, keyId?: string | null): Promise<RunView>;
  /** Runs visible in a scope (null = every tenant), newest first unless `order` is asc; `next` is the cursor of the following page, null on the last. */
  list(scope: string | null, query: ListRunsInput): Promise<{ runs: RunView[]; next: string | null }>;
  /** A run's view, or null when it does not exist in this scope (a tenant never learns of another's runs). */
  get(scope: string | null, runId: string): Promise<RunView | null>;
  /** The tenant that owns a run, or null when unknown. */
  owner(runId: string): Promise<string | null>;
  /** Asks a run (or one executor of it) to stop. */
  cancel(scope: string | null, runId: string, executorId?: string): Promise<CancelOutcome>;
}

export interface ListRunsInput {
  limit: number;
  cursor?: string;
  state?: RunState;
  order?: "asc" | "desc";
  createdAfter?: Date;
  createdBefore?: Date;
  metadata?: Record<string, string>;
}

/** queued: waiting for a worker (new, or to take over a run whose host stopped). */
export const RUN_STATES = ["queued", "running", "settled", "failed", "cancelled"] as const;
export type RunState = (typeof RUN_STATES)[number];
export const FINAL_STATES: readonly RunState[] = ["settled", "failed", "cancelled"];

export const REVIEWER_MODES = ["off", "shadow", "advisory"] as const;

export interface RoleCaps {
  maxTurns?: number;
  maxToolCalls?: number;
}

export interface SubmitRunInput {
  /** Required unless offline or scenario asks for a scripted scenario. */
  question?: string;
  /** The scripted offline scenario (the default one unless `scenario` names another). */
  offline?: boolean;
  scenario?: string;
  context?: string;
  /** Profiles Main may delegate to; default every profile. */
  allowedProfiles?: string[];
  /** Caps at or below the configured maximum (governance/config.ts); Child caps lower investigate-style Children too. */
  caps?: { main?: RoleCaps; child?: RoleCaps; maxDepth?: number };
  reviewer?: (typeof REVIEWER_MODES)[number];
  /** Model name per role; default from the environment (ARIADNE_MODEL_*). */
  models?: { main?: string; child?: string; reviewer?: string };
  /** The submitter's string map (bounded: runs/runMetadata.ts). */
  metadata?: Record<string, string>;
  /** One executor with every tool but delegate, no Children (runs/planRun.ts). */
  singleAgent?: boolean;
  /** The request's W3C `traceparent` header (not part of the body): the run's spans join that trace. */
  traceparent?: string;
}

export interface ExecutorNode {
  id: string;
  role: "main" | "child" | "reviewer" | "checker";
  profile: string | null;
  status: "running" | "settled" | "failed" | "cancelled";
  question: string;
  turns: number;
  toolCalls: number;
  children: ExecutorNode[];
}

export interface RunView {
  id: string;
  tenant: string;
  state: RunState;
  question: string;
  mainExecutorId: string;
  createdAt: string;
  scripted: boolean;
  budget: {
    turns: number;
    toolCalls: number;
    inputTokens: number;
    outputTokens: number;
    /** The run's shared budget (projections/budget.ts): spent, held by open reservations, caps, left. */
    spent: { tokens: number; costMicros: number };
    reserved: { tokens: number; costMicros: number };
    caps: { tokens: number | null; costMicros: number | null };
    left: { tokens: number | null; costMicros: number | null };
    /** Remind facts raised for the run, and whether each was delivered. */
    reminders: { key: string; text: string; status: string }[];
  };
  executors: ExecutorNode;
  /** Main's answer once the run settled with one. */
  answer: Record<string, unknown> | null;
  /** Why the run failed or was cancelled. */
  reason: string | null;
  /** Tool calls whose outcome is unknown (`effect_unknown`), never run again: to check by hand before relying on the answer. */
  unknownEffects: { executorId: string; toolUseId: string; tool: string }[];
  /** Global position of the last event folded into this view. */
  lastPosition: number;
  /** The submitter's string map; `{}` when none. */
  metadata: Record<string, string>;
}

export type CancelOutcome =
  | { kind: "requested"; run: RunView }
  | { kind: "already_final"; run: RunView }
  | { kind: "not_found" };
