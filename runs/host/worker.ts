import type { KeyObject } from "node:crypto";
import { sleep } from "../../core/sleep.ts";
import type { Database } from "../../db/openDatabase.ts";
import type { EventStore } from "../../events/index.ts";
import { type BuildRuntime, type HostedRun, type HostResult, hostRun } from "./hostRun.ts";
import { leaseOwner } from "../lease/leaseOwner.ts";
import { RUNS_CHANNEL } from "../lease/runLease.ts";
import { takeLease } from "../lease/takeLease.ts";
import { workerOptionProblem } from "./workerOptionProblem.ts";
import { type AdmissionGateOptions, admissionGate } from "./admissionGate.ts";
import { ConfigError } from "../../core/errors.ts";

export interface WorkerOptions {
  database: Database;
  store: EventStore;
  buildRuntime: BuildRuntime;
  owner?: string;
  /** Lease time to live; the heartbeat renews at a third of it. */
  ttlMs?: number;
  /** How often to look for submitted runs and expired leases besides notifications. */
  pollMs?: number;
  /** Runs hosted at once. */
  concurrency?: number;
  /** On shutdown, how long tool calls in flight may take to record their outcome. */
  graceMs?: number;
  /** Aborting it shuts the worker down: its runs are released for another worker at once. */
  signal?: AbortSignal;
  /** Stop once nothing was hosted or taken for this long (tests, batch use). */
  idleExitMs?: number;
  log?: (line: string) => void;
  /** The key each hosted run's seal is signed with (hostRun). */
  sealKey?: KeyObject;
  /** When a worker hosting runs takes another: it holds while queries wait for the pool or its event loop is busy (admissionGate.ts). */
  admission?: AdmissionGateOptions;
}

export const WORKER_DEFAULTS = { ttlMs: 15_000, pollMs: 1_000, concurrency: 4, graceMs: 5_000 };

/**
 * The worker loop: takes submitted runs and runs whose owner's lease expired,
 * hosts each under its lease, and on shutdown releases what it holds. The
 * database going away is met with backoff; hosted runs whose writes failed are
 * given back to the queue and taken again once it is reachable.
 */
export async function runWorker(options: WorkerOptions): Promise<{ owner: string; results: HostResult[] }> {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as WorkerOptions;
  const o = { ...WORKER_DEFAULTS, ...given };
  const problem = workerOptionProblem(o);
  if (problem) throw new ConfigError(`worker: ${problem}`);
  const owner = o.owner ?? leaseOwner("worker");
  const log = o.log ?? (() => {});
  const hosted = new Map<string, HostedRun>();
  const results: HostResult[] = [];
  let wake: () => void = () => {};
  const unlisten = await o.database.listen(RUNS_CHANNEL, () => wake()).catch(() => async () => {});
  o.signal?.addEventListener("abort", () => wake(), { once: true });
  let backoffMs = 100;
  let idleSince = Date.now();
  const gate = admissionGate({ waiting: () => o.database.waiting?.() ?? 0, ...o.admission });

  while (!o.signal?.aborted) {
    if (hosted.size < o.concurrency) {
      await gate.ready(hosted.size, o.signal);
      if (o.signal?.aborted) break;
      let lease;
      try {
        lease = await takeLease(o.database, { owner, ttlMs: o.ttlMs, skip: [...hosted.keys()] });
        backoffMs = 100;
      } catch (e) {
        log(`worker: cannot take runs (${(e as Error).message}); retrying in ${backoffMs} ms`);
        await sleep(backoffMs, o.signal);
        backoffMs = Math.min(backoffMs * 2, 5_000);
        continue;
      }
      if (lease) {
        log(`worker: took run ${lease.runId} (epoch ${lease.epoch}${lease.fresh ? ", new" : ", taking over"})`);
        const h = hostRun({ database: o.database, store: o.store, buildRuntime: o.buildRuntime, ttlMs: o.ttlMs, sealKey: o.sealKey }, lease);
        hosted.set(lease.runId, h);
        void h.done.then((r) => {
          hosted.delete(lease.runId);
          results.push(r);
          idleSince = Date.now();
          log(`worker: run ${lease.runId} ${describe(r)}`);
          wake();
        });
        continue;
      }
    }
    if (o.idleExitMs !== undefined && hosted.size === 0 && Date.now() - idleSince >= o.idleExitMs) break;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, o.pollMs);
      wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }
  // Shutting down: in-flight tools record their outcome, then the runs go back to the queue.
  await Promise.all([...hosted.values()].map((h) => h.stop("release", o.graceMs)));
  if (hosted.size) o.database.notify?.(RUNS_CHANNEL);
  await unlisten();
  return { owner, results };
}

function describe(r: HostResult): string {
  if (r.kind === "finished") return `finished: ${r.outcome.kind}${r.outcome.kind === "answer" && r.outcome.partial ? " (partial)" : ""}`;
  if (r.kind === "interrupted") return "interrupted";
  return `${r.kind}: ${r.reason}`;
}
