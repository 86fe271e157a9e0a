import type { KeyObject } from "node:crypto";
import { AriadneError, NotFoundError } from "../core/errors.ts";
import type { Database } from "../db/openDatabase.ts";
import { type EventStore, sealRun, executorStreamId } from "../events/index.ts";
import { postToExecutor } from "../actors/postToExecutor.ts";
import { cancelRequest } from "../actors/decide/cancel.ts";
import { appendRunFact } from "./appendRunFact.ts";
import { findRun } from "./findRun.ts";
import { forceLease } from "./lease/forceLease.ts";
import { leaseOwner } from "./lease/leaseOwner.ts";
import { releaseLease } from "./lease/releaseLease.ts";
import { type ExecutorNode, runStatus } from "./runStatus.ts";

export interface CancelRequest {
  runId: string;
  /** One executor and its descendants; absent: the whole run. */
  executorId?: string;
  reason: string;
  by: "operator";
}

export interface CancelResult {
  /** Executors that were live and are now cancelled (or asked to cancel). */
  cancelled: string[];
  /** True when the cancel was posted to a live host as a request (it acts at once), false when recorded here. */
  requested?: boolean;
}

export interface CancelDeps {
  database: Database;
  store: EventStore;
  /** The key a run ended by the cancel is sealed with (as its host would); none: unsigned. */
  sealKey?: KeyObject;
}

/**
 * The one cancel use case behind `ariadne cancel` and `POST /v1/runs/{id}/cancel`.
 */
export type CancelRun = (request: CancelRequest) => Promise<CancelResult>;

/**
 * Cancels a run or one executor. While a live process hosts the run, the cancel
 * is a request: `cancel_requested` in the target's stream, which the host's
 * runtime folds at once (it watches its inboxes), cascading to every live Child
 * and aborting tools in flight, and recording what was in flight. With no live
 * host (interrupted, crashed, or still queued) nothing is in flight, so the
 * run is taken over and `cancelled` recorded directly (cancelByTakeover).
 */
export function cancelRun(deps: CancelDeps): CancelRun {
  const takeover = cancelByTakeover(deps);
  return async (asked) => {
    const row = await findRun(deps.database, asked.runId);
    // Cancelling Main is cancelling the run, whether or not Main has been admitted yet.
    const request = asked.executorId === row.mainExecutorId ? { ...asked, executorId: undefined } : asked;
    const hosted = row.state === "running" && row.leaseOwner !== null && (row.leaseRemainingMs ?? 0) > 0;
    if (!hosted) return takeover(request);
    const target = request.executorId ?? row.mainExecutorId;
    const posted = await postToExecutor(deps.store, target, [cancelRequest(request.reason, request.by, request.executorId ? "executor" : "run")]);
    if (posted.ok) return { cancelled: [target], requested: true };
    // Taken by a worker that has not admitted Main yet: nothing is in flight, so the run is taken over
    // (the forced lease fences the worker before it writes anything).
    if (posted.reason === "not_found" && !request.executorId) return takeover(request);
    if (posted.reason === "not_found") throw new NotFoundError(`run ${request.runId} has no executor ${target}`);
    return { cancelled: [] };
  };
}

/**
 * With no live host: cancels by taking the run
 * over. The forced lease raises the epoch, so the current owner, if any, is
 * fenced at its next append and stops; `cancelled` is then recorded in every
 * live executor of the subtree, deepest first. A whole-run cancel finishes the
 * run; cancelling one Child gives the run back to the queue (or leaves it
 * interrupted), and whoever resumes it sees the Child cancelled.
 */
export function cancelByTakeover(deps: CancelDeps): CancelRun {
  return async (request) => {
    const row = await findRun(deps.database, request.runId);
    const status = await runStatus(deps.database, deps.store, request.runId);
    const target = request.executorId ? find(status.executors, request.executorId) : status.executors;
    if (request.executorId && !target) throw new NotFoundError(`run ${request.runId} has no executor ${request.executorId}`);
    if (row.state === "finished") throw new AriadneError("RUN_FINISHED", 409, `run ${request.runId} has already finished (${status.state}); nothing to cancel`);
    const taken = await forceLease(deps.database, { runId: request.runId, owner: leaseOwner("cancel"), ttlMs: 30_000 });
    if (!taken) throw new AriadneError("RUN_FINISHED", 409, `run ${request.runId} finished meanwhile; nothing to cancel`);
    const { lease, previousState } = taken;
    const fenced = deps.store.withFence({ runId: lease.runId, epoch: lease.epoch });
    // Read again under the forced lease: the previous owner, fenced now, may have written meanwhile.
    const now = await runStatus(deps.database, deps.store, request.runId);
    const current = request.executorId ? find(now.executors, request.executorId) : now.executors;
    const live = current ? liveDeepestFirst(current) : [];
    const wholeRun = !request.executorId || request.executorId === lease.mainExecutorId;
    if (wholeRun && !now.executors) {
      // Still queued, Main never admitted: the run's own stream says who cancelled it and why.
      await appendRunFact(fenced, lease, { type: "cancel_requested", data: { reason: request.reason, by: request.by, scope: "run" } });
    }
    for (const id of live) {
      await fenced.append(executorStreamId(id), await deps.store.streamVersion(executorStreamId(id), lease.runId), [
        { type: "cancelled", data: { reason: request.reason, by: request.by }, metadata: { runId: lease.runId, executorId: id } },
      ]);
    }
    // A run that ends here is sealed here, as its host would have: verify expects a seal on every ended run.
    // A damaged run is never sealed over; verify names its damage instead.
    if (wholeRun && now.executors) {
      await sealRun(fenced, { runId: lease.runId, mainExecutorId: lease.mainExecutorId }, { signingKey: deps.sealKey }).catch((e) => {
        if ((e as { code?: string }).code !== "RUN_NOT_INTACT") throw e;
      });
    }
    await releaseLease(deps.database, lease, wholeRun ? "finished" : previousState === "interrupted" ? "interrupted" : "running");
    deps.database.notify?.("ariadne_runs");
    return { cancelled: live };
  };
}

function find(node: ExecutorNode | null, id: string): ExecutorNode | null {
  if (!node) return null;
  if (node.executorId === id) return node;
  for (const c of node.children) {
    const hit = find(c, id);
    if (hit) return hit;
  }
  return null;
}

function liveDeepestFirst(node: ExecutorNode): string[] {
  const below = node.children.flatMap(liveDeepestFirst);
  return node.state === "running" ? [...below, node.executorId] : below;
}
