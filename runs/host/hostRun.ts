import type { KeyObject } from "node:crypto";
import type { Runtime } from "../../actors/index.ts";
import type { Outcome } from "../../actors/fold/executorState.ts";
import { retryOnConnectionLoss } from "../../core/connectionLoss.ts";
import type { Database } from "../../db/openDatabase.ts";
import type { EventStore } from "../../events/index.ts";
import { sealRun } from "../../events/sealRun.ts";
import { releaseOpenReservations } from "../../db/releaseOpenReservations.ts";
import { appendRunFact } from "../appendRunFact.ts";
import { drainingStore } from "./drainingStore.ts";
import { startHeartbeat } from "../lease/heartbeat.ts";
import { reconnectingStore } from "./reconnectingStore.ts";
import { releaseLease } from "../lease/releaseLease.ts";
import type { RunLease } from "../lease/runLease.ts";
import { verifyRun } from "../verifyRun.ts";
import { checkBeforeSeal } from "../check/checkBeforeSeal.ts";
import type { SourceReaders } from "../check/rereadSources.ts";
import { executorStreamId } from "../../events/index.ts";
import { type HostLeaving, type HostResult, finishedLeaving, hostOutcome, stopLeaving } from "./hostOutcome.ts";

/**
 * Builds the runtime for a run over the store it must write through (fenced, drainable). With
 * `sourceReaders` (runtimeFactory's) and a runtime that has a Checker, the host has each answer
 * checked by the run's Checker before it seals the run.
 */
export type BuildRuntime = ((store: EventStore, lease: RunLease) => Runtime | Promise<Runtime>) & {
  sourceReaders?: (database: Database, lease: RunLease) => SourceReaders | Promise<SourceReaders>;
};

export type { HostResult };

export interface HostedRun {
  lease: RunLease;
  done: Promise<HostResult>;
  /**
   * Stops starting new steps, waits up to graceMs for tool calls in flight to
   * record their outcome, then either marks the run interrupted (run_interrupted,
   * for an operator's resume or cancel) or releases it for another worker at once.
   */
  stop(how: "interrupt" | "release", graceMs: number): Promise<HostResult>;
}

export interface HostDeps {
  database: Database;
  store: EventStore;
  buildRuntime: BuildRuntime;
  ttlMs: number;
  /** Ed25519 private key the run's seal is signed with (held outside the database); none: unsigned. */
  sealKey?: KeyObject;
}

/**
 * Hosts one leased run in this process: verifies its log, starts Main (a fresh
 * run) or rebuilds it (Children re-attach through Main's recorded delegate
 * calls), writes through a store fenced by the lease epoch, renews the lease on
 * a timer and gives the run back when it ends.
 */
export function hostRun(hostDeps: HostDeps, lease: RunLease): HostedRun {
  // A database restart is ridden out: reads and appends retry, an append never twice.
  const deps = { ...hostDeps, store: reconnectingStore(hostDeps.store) };
  const gate = drainingStore(deps.store.withFence({ runId: lease.runId, epoch: lease.epoch }));
  let resolveDone!: (r: HostResult) => void;
  const done = new Promise<HostResult>((r) => (resolveDone = r));
  let ended = false;
  let stopping: Promise<HostResult> | null = null;
  // What the run holds beyond the lease (its inbox watch, on the process's one LISTEN connection).
  // A lost run's runners may never return (their appends are parked), so these go when the run ends.
  let unwatch: (() => Promise<void>) | null = null;
  const release = () => {
    const u = unwatch;
    unwatch = null;
    return u?.().catch(() => {});
  };
  const end = (r: HostResult) => {
    if (ended) return;
    ended = true;
    heartbeat.stop();
    void release();
    resolveDone(r);
  };
  const heartbeat = startHeartbeat(deps.database, lease, deps.ttlMs, (why) => {
    gate.halt();
    end({ kind: "fenced", reason: why });
  });
  const fenced = deps.store.withFence({ runId: lease.runId, epoch: lease.epoch });
  /** Carries out how the host leaves the run (hostOutcome.ts): the fact, then the lease, then `done`. */
  const leave = async (l: HostLeaving): Promise<void> => {
    if (l.lease === null) return end(l.result);
    gate.halt();
    heartbeat.stop();
    const must = <T>(p: Promise<T>, fallback: T) => (l.bestEffort ? p.catch(() => fallback) : p);
    if (l.interrupted) await must(appendRunFact(fenced, lease, { type: "run_interrupted", data: l.interrupted }), undefined);
    const state = l.lease;
    const releaseTo = () => releaseLease(deps.database, lease, state);
    const held = await must(l.retry ? retryOnConnectionLoss(`release run ${lease.runId}`, releaseTo) : releaseTo(), true);
    // Executors fold facts from outside, so a host whose run was taken over can see the new owner
    // finish it: that host wrote none of it, and says so.
    if (!held && state === "finished") {
      return end({ kind: "fenced", reason: `run ${lease.runId} was taken over (epoch ${lease.epoch} is no longer the run's) and finished by its new owner` });
    }
    end(l.result);
  };

  (async () => {
    if (!lease.fresh) {
      await verifyRun(deps.store, lease.runId);
      // The previous owner is gone (or fenced): what it reserved and never settled is given back,
      // and spent is recounted from the log, before any executor of the run reserves again.
      await releaseOpenReservations(deps.database, lease.runId);
      // From the run's last event until now it had no host: wall clocks do not count that time.
      const events = await deps.store.readRun(lease.runId);
      const last = events.reduce((t, e) => Math.max(t, e.recordedAt.getTime()), 0);
      if (last > 0) {
        await appendRunFact(fenced, lease, {
          type: "run_resumed",
          data: { downSince: new Date(last).toISOString() },
        });
      }
    }
    const runtime = await deps.buildRuntime(gate, lease);
    const started = (await deps.store.streamVersion(executorStreamId(lease.mainExecutorId), lease.runId)) > 0;
    // A cancel request posted by another process reaches this run's executors at once.
    unwatch = await runtime.watchInboxes(lease.runId);
    if (ended) await release(); // lost while the watch was being set up
    let outcome: Outcome;
    try {
      outcome = started
        ? await (await runtime.resumeRun(lease.runId)).result
        : await (await runtime.startRun(lease.question, lease.options.context ?? "", { runId: lease.runId, mainExecutorId: lease.mainExecutorId })).result;
      // Main drafted its answer: the run's Checker checks it before the seal, so its stream (the check
      // tools' outputs, its verdicts) is covered by the root hash and `check_completed` precedes `run_sealed`.
      if (outcome.kind === "answer" && runtime.checks && deps.buildRuntime.sourceReaders && !ended && !stopping) {
        await checkBeforeSeal(gate, runtime, lease, await deps.buildRuntime.sourceReaders(deps.database, lease));
      }
    } finally {
      await release();
    }
    if (ended || stopping) return;
    // Sealed by its owner once final: the root hash commits to every executor stream of the run.
    const { rootHash } = await sealRun(gate, { runId: lease.runId, mainExecutorId: lease.mainExecutorId }, { signingKey: deps.sealKey });
    // Every executor is final: no reservation may stay open, whatever became of the calls that took
    // them (one whose executor stopped between reserve and settle), and spent is what the log settled.
    await releaseOpenReservations(deps.database, lease.runId);
    await leave(finishedLeaving(outcome, rootHash));
  })().catch(async (error) => {
    if (ended || stopping) return;
    await leave(await hostOutcome(error, deps.database, lease.runId));
  });

  return {
    lease,
    done,
    stop(how, graceMs) {
      stopping ??= (async (): Promise<HostResult> => {
        if (ended) return done;
        gate.drain();
        const { inFlight } = await gate.settled(graceMs);
        gate.halt();
        if (ended) return done;
        await leave(stopLeaving(how, inFlight));
        return done;
      })().catch((error) => {
        // The interruption could not be recorded (the database went away): the lease runs out instead.
        end({ kind: "released", reason: `could not record the stop: ${(error as Error).message ?? String(error)}` });
        return done;
      });
      return stopping;
    },
  };
}
