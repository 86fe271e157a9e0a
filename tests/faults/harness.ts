import { sql } from "kysely";
import { openStore } from "../../events/openStore.ts";
import { type RecordedEvent, describeProblem, intentOf, verifyRun as verifyWholeRun } from "../../events/index.ts";
import { readRunBudget } from "../../governance/index.ts";
import { findRun, runStatus, submitRun, verifyRun } from "../../runs/index.ts";
import { start } from "../runs/processes.ts";
import { bundled } from "./bundle.ts";
import type { startEffectCounter } from "./effectCounter.ts";

/**
 * Crash points the CI fault matrix covers (`npm run soak` arms every one, tests/faults/points.ts), with the pass at which each fires
 * (a count, so a later boundary of the same kind is hit too).
 */
export const CRASH_POINTS = [
  "during:lease_takeover",
  "after_commit:executor_admitted",
  "after_commit:turn",
  "after_commit:tool_called",
  "after_effect:record_effect",
  "after_effect:read_counter",
  "after_commit:tool_completed",
  "after_commit:handoff_committed",
  "after_commit:handoff_consumed",
  "after_commit:settled",
  "after_commit:budget_reserved",
  "during:budget_reservation",
  // A sample of the other commit boundaries (the soak arms them all): nothing sent, and rolled back at the COMMIT.
  "before_commit:tool_called",
  "during_commit:handoff_committed",
] as const;

export interface CaseResult {
  point: string;
  seed: number;
  runId: string;
  crashed: boolean;
  restart: "worker" | "resume";
  /** What the armed process printed: when it never crashed, this says how its run ended instead. */
  firstOutput: string;
  violations: string[];
}

type Counter = Awaited<ReturnType<typeof startEffectCounter>>;

/**
 * One case: submit a run, let a worker process run it with the crash point
 * armed (it SIGKILLs itself there), restart with a second worker (taking the
 * expired lease) or a resume (always on PGlite), then check the invariants.
 */
export async function runCase(target: FaultTarget, counter: Counter, point: string, seed: number): Promise<CaseResult> {
  // A takeover happens once per process; other boundaries recur, so odd seeds crash at the second pass.
  const nth = point === "during:lease_takeover" ? 1 : 1 + (seed % 2);
  const restart = target.dataDir || seed % 2 === 1 ? "resume" : "worker";
  const env = {
    DATABASE_URL: target.url ?? "",
    FAULT_DATA_DIR: target.dataDir ?? "",
    FAULT_EFFECT_URL: counter.url,
    FAULT_SEED: String(seed),
    FAULT_LEASE_MS: "1000",
  };
  // Opened only around the submit and the checks: an embedded store is one process at a time.
  const withStore = async <T>(f: (o: Awaited<ReturnType<typeof openStore>>) => Promise<T>) => {
    const opened = await openStore({ url: target.url, dataDir: target.dataDir });
    try {
      return await f(opened);
    } finally {
      await opened.close();
    }
  };
  const { runId } = await withStore((o) => submitRun(o.store, { question: `fault ${point} seed ${seed}`, options: { mode: "offline" } }));
  const script = await bundled("tests/faults/faultProcess.ts");
  const first = start(["worker"], { ...env, ARIADNE_CRASH_AT: `${point}:${nth}` }, script);
  const code = await first.exited;
  const crashed = code === "SIGKILL";
  if (!crashed && code !== 0) throw new Error(`the first process failed (${code}):\n${first.output()}`);
  if (crashed) {
    const second = restart === "worker" ? start(["worker"], env, script) : start(["resume", runId], env, script);
    const again = await second.exited;
    if (again !== 0) throw new Error(`the restart (${restart}) failed (${again}):\n${second.output()}`);
  }
  return { point, seed, runId, crashed, restart, firstOutput: first.output(), violations: await withStore((o) => invariants(o, counter, runId)) };
}

/** Where the scenario's processes keep the log: a PostgreSQL database, or an embedded PGlite directory. */
export type FaultTarget = { url: string; dataDir?: undefined } | { url?: undefined; dataDir: string };

/** The invariants of the issue, as a list of what was violated (empty: all hold). */
export async function invariants(opened: Awaited<ReturnType<typeof openStore>>, counter: Counter, runId: string): Promise<string[]> {
  const { store, database } = opened;
  const violations: string[] = [];
  // 4. every chain verifies
  try {
    await verifyRun(store, runId);
  } catch (e) {
    violations.push(`chain: ${(e as Error).message}`);
  }
  const events = await store.readRun(runId);
  const of = <T extends RecordedEvent["type"]>(type: T) => events.filter((e) => e.type === type) as RecordedEvent<T>[];
  // 4b. the run verifies as `ariadne verify` checks it: references between streams, and the seal over the heads
  let sealed = false;
  try {
    const verification = await verifyWholeRun(database, runId);
    sealed = verification.sealed !== null;
    if (!verification.ok) violations.push(`verify: ${describeProblem(verification.problems[0])}`);
  } catch (e) {
    violations.push(`verify: ${(e as Error).message}`);
  }
  // 6. a tool use id is never used twice by one executor (a step replayed as new)
  // Intents as the log holds them: a tool_called, or a read-only call's one row (its outcome carrying the intent).
  const intents = events.flatMap((e) => {
    const intent = intentOf(e);
    return intent ? [{ data: intent, metadata: e.metadata }] : [];
  });
  const uses = new Map<string, number>();
  for (const e of intents) uses.set(`${e.metadata.executorId}/${e.data.toolUseId}`, (uses.get(`${e.metadata.executorId}/${e.data.toolUseId}`) ?? 0) + 1);
  for (const [key, n] of uses) if (n > 1) violations.push(`tool use: ${key} called ${n} times`);

  // 1. every committed handoff is consumed exactly once (or reported unconsumed); none twice
  for (const admitted of of("executor_admitted").filter((e) => e.data.role === "child")) {
    const child = admitted.metadata.executorId;
    const committed = of("handoff_committed").filter((e) => e.metadata.executorId === child).length;
    const consumed = of("handoff_consumed").filter((e) => e.data.childExecutorId === child).length;
    if (committed > 1) violations.push(`handoff: child ${child} committed ${committed} handoffs`);
    if (consumed > 1) violations.push(`handoff: child ${child}'s handoff consumed ${consumed} times`);
    if (committed === 1 && consumed === 0) violations.push(`handoff: child ${child}'s committed handoff was never consumed`);
  }
  // 2. no effectful tool ran twice (counted outside the log)
  for (const { key, n } of counter.of(runId)) if (n > 1) violations.push(`effect: ${key} ran ${n} times`);
  // every effect that ran is in the log as completed or unknown, never silently lost
  for (const { key } of counter.of(runId)) {
    const [, executorId, label] = key.split("/");
    const its = intents.filter((e) => e.metadata.executorId === executorId && e.data.tool === "record_effect" && (e.data.input as { label?: string }).label === label);
    const outcomes = events.filter(
      (e) =>
        (e.type === "tool_completed" || e.type === "effect_unknown" || e.type === "tool_failed") &&
        e.metadata.executorId === executorId && // tool use ids are unique per executor, not per run
        its.some((i) => i.data.toolUseId === e.data.toolUseId),
    );
    if (its.length !== 1 || outcomes.length !== 1) violations.push(`effect: ${key} has ${its.length} intent(s) and ${outcomes.length} outcome(s) in the log`);
  }
  // a read-only or idempotent call is never left unknown: it has one outcome, a result or a failure
  for (const intent of intents.filter((e) => e.data.effect !== "effectful" && e.data.tool !== "delegate")) {
    const outcomes = events.filter(
      (e) => (e.type === "tool_completed" || e.type === "effect_unknown" || e.type === "tool_failed") && e.metadata.executorId === intent.metadata.executorId && e.data.toolUseId === intent.data.toolUseId,
    );
    if (outcomes.length !== 1 || outcomes[0].type === "effect_unknown") {
      violations.push(`rerun: ${intent.data.tool} (${intent.data.toolUseId}) of ${intent.metadata.executorId} has outcomes [${outcomes.map((o) => o.type).join(", ")}]`);
    }
  }
  // 3. no budget cap is exceeded, and the dead process's reservations are released
  const budget = await readRunBudget(database, runId);
  if (!budget) violations.push("budget: the run has no budget row");
  else {
    const t = budget.totals;
    const settled = of("budget_settled").reduce((sum, e) => ({ tokens: sum.tokens + (e.data.actual.tokens ?? 0), costMicros: sum.costMicros + (e.data.actual.costMicros ?? 0) }), { tokens: 0, costMicros: 0 });
    if (t.reservedTokens || t.reservedCostMicros || budget.openReservations) {
      violations.push(`budget: ${t.reservedTokens} tokens (${budget.openReservations} reservation(s)) still reserved after the run ended`);
    }
    if (t.spentTokens !== settled.tokens || t.spentCostMicros !== settled.costMicros) {
      violations.push(`budget: spent ${t.spentTokens} tokens / ${t.spentCostMicros} µ$ but the log settled ${settled.tokens} / ${settled.costMicros}`);
    }
    if (t.spentTokens > t.maxTokens || t.spentCostMicros > t.maxCostMicros) violations.push(`budget: a run cap is exceeded (${t.spentTokens}/${t.maxTokens} tokens)`);
  }
  // 5. the run reaches a final state, with no executor left running
  const status = await runStatus(database, store, runId);
  if (!["settled", "failed", "cancelled"].includes(status.state)) violations.push(`final: the run is ${status.state}`);
  const running = (n: NonNullable<typeof status.executors>): string[] => [...(n.state === "running" ? [n.executorId] : []), ...n.children.flatMap(running)];
  if (status.executors && running(status.executors).length) violations.push(`final: executors still running: ${running(status.executors).join(", ")}`);
  if ((await findRun(database, runId)).state !== "finished") violations.push(`final: the run's row is not finished`);
  if (status.state === "settled" && !sealed) violations.push("verify: the settled run was never sealed");
  const mainSettled = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM ariadne_events WHERE run_id = ${runId} AND type IN ('settled', 'failed', 'cancelled') AND executor_id = ${status.executors?.executorId ?? ""}`.execute(database.db);
  if (mainSettled.rows[0].n !== 1) violations.push(`final: Main has ${mainSettled.rows[0].n} final events`);
  return violations;
}
