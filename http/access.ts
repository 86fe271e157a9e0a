import type { Context } from "hono";
import { type Action, may, tenantScope } from "./auth/principal.ts";
import type { AppDeps, AppEnv } from "./deps.ts";
import { HttpProblem } from "./problem.ts";
import type { ExecutorNode, RunView } from "./runs/runsPort.ts";
import type { Answer } from "../actors/index.ts";

/** Refuses an action the caller's role does not allow (403: the role, not the run, is the problem). */
export function requireAction(c: Context<AppEnv>, action: Action): void {
  const p = c.get("principal");
  if (!may(p, action)) throw new HttpProblem(403, "FORBIDDEN", `${/^[aeiou]/.test(p.role) ? "an" : "a"} ${p.role} key may not ${action} runs`);
}

/** The run if the caller may see it; 404 otherwise, whether it is missing or another tenant's. */
export async function visibleRun(deps: AppDeps, c: Context<AppEnv>, runId: string): Promise<RunView> {
  const run = await deps.runs.get(tenantScope(c.get("principal")), runId);
  if (!run) throw new HttpProblem(404, "NOT_FOUND", `no run ${runId}`);
  return run;
}

/** An executor of a visible run; 404 when the run has no such executor. */
export function executorOf(run: RunView, executorId: string): ExecutorNode {
  const walk = (n: ExecutorNode): ExecutorNode | null => (n.id === executorId ? n : n.children.map(walk).find(Boolean) ?? null);
  const node = walk(run.executors);
  if (!node) throw new HttpProblem(404, "NOT_FOUND", `run ${run.id} has no executor ${executorId}`);
  return node;
}

/** A run as the API returns it: its view plus where to go next. */
export function renderRun(run: RunView) {
  const base = `/v1/runs/${run.id}`;
  return {
    ...run,
    executors: run.executors,
    // Validated against the answer contract before it was recorded (actors/request/answer.ts).
    answer: run.answer as Answer | null,
    links: { self: base, events: `${base}/events`, cancel: `${base}/cancel`, verify: `${base}/verify` },
  };
}
