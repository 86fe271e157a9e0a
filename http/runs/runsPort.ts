/**
 * The narrow port http/ needs from run lifecycle. Today an in-process adapter
 * (inProcessRuns.ts) implements it over the Runtime and the store; at merge it
 * is implemented over runs/ (submitRun, the runs table, cancel requests).
 */
export interface RunsPort {
  /** Starts (or queues) a run for a tenant; answers with its view. */
  submit(input: SubmitRunInput, tenant: string): Promise<RunView>;
  /** Runs visible in a scope (null = every tenant), newest first. */
  list(scope: string | null, page: { limit: number; cursor?: string }, state?: RunState): Promise<{ runs: RunView[]; next: string | null }>;
  /** A run's view, or null when it does not exist in this scope (a tenant never learns of another's runs). */
  get(scope: string | null, runId: string): Promise<RunView | null>;
  /** The tenant that owns a run, or null when unknown. */
  owner(runId: string): Promise<string | null>;
  /** Asks a run (or one executor of it) to stop. */
  cancel(scope: string | null, runId: string, executorId?: string): Promise<CancelOutcome>;
  close(): Promise<void>;
}

export const RUN_STATES = ["queued", "running", "settled", "failed", "cancelled"] as const;
export type RunState = (typeof RUN_STATES)[number];
export const FINAL_STATES: readonly RunState[] = ["settled", "failed", "cancelled"];

export const REVIEWER_MODES = ["off", "shadow", "advisory"] as const;

export interface RoleCaps {
  maxTurns?: number;
  maxToolCalls?: number;
}

export interface SubmitRunInput {
  question: string;
  context?: string;
  /** Profiles Main may delegate to; default every profile. */
  allowedProfiles?: string[];
  /** Caps at or below the defaults. */
  caps?: { main?: RoleCaps; child?: RoleCaps; maxDepth?: number };
  reviewer?: (typeof REVIEWER_MODES)[number];
  /** Model name per role; default from the environment (ARIADNE_MODEL_*). */
  models?: { main?: string; child?: string; reviewer?: string };
}

export interface ExecutorNode {
  id: string;
  role: "main" | "child" | "reviewer";
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
  budget: { turns: number; toolCalls: number; inputTokens: number; outputTokens: number };
  executors: ExecutorNode;
  /** Main's answer once the run settled with one. */
  answer: Record<string, unknown> | null;
  /** Why the run failed or was cancelled. */
  reason: string | null;
  /** Global position of the last event folded into this view. */
  lastPosition: number;
}

export type CancelOutcome =
  | { kind: "requested"; run: RunView }
  | { kind: "already_final"; run: RunView }
  | { kind: "not_found" };
