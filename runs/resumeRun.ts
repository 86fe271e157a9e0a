import type { KeyObject } from "node:crypto";
import { AriadneError, NotFoundError } from "../core/errors.ts";
import { adoptRun } from "./adoptRun.ts";
import type { Database } from "../db/openDatabase.ts";
import type { EventStore } from "../events/index.ts";
import { findRun } from "./findRun.ts";
import { type BuildRuntime, type HostedRun, hostRun } from "./host/hostRun.ts";
import { leaseOwner, ownerIsDead } from "./lease/leaseOwner.ts";
import { takeLease } from "./lease/takeLease.ts";

export interface ResumeOptions {
  database: Database;
  store: EventStore;
  buildRuntime: BuildRuntime;
  ttlMs: number;
  owner?: string;
  /** How long to wait for a live owner's lease to run out before giving up. */
  waitMs?: number;
  log?: (line: string) => void;
  /** The key the run's seal is signed with (hostRun). */
  sealKey?: KeyObject;
}

/**
 * Finishes a run in this process: an interrupted one, one whose owner died, or
 * a submitted one no worker took yet. A run held by a live owner is waited for
 * until its lease runs out (an owner that died on this host is recognised at
 * once); a finished run is refused.
 */
export async function resumeRun(options: ResumeOptions, runId: string): Promise<HostedRun> {
  const owner = options.owner ?? leaseOwner("resume");
  const deadline = Date.now() + (options.waitMs ?? 0);
  await findRun(options.database, runId).catch(async (e) => {
    if (!(e instanceof NotFoundError)) throw e;
    await adoptRun(options.store, runId);
  });
  for (;;) {
    const row = await findRun(options.database, runId);
    if (row.state === "finished") throw new AriadneError("RUN_FINISHED", 409, `run ${runId} has already finished; nothing to resume (see ariadne status ${runId})`);
    const dead = row.state === "running" && ownerIsDead(row.leaseOwner) ? row.leaseOwner : null;
    const lease = await takeLease(options.database, { owner, ttlMs: options.ttlMs, runId, interrupted: true, deadOwner: dead });
    if (lease) {
      options.log?.(`resuming run ${runId} (epoch ${lease.epoch})`);
      return hostRun(options, lease);
    }
    const remaining = Math.max(0, row.leaseRemainingMs ?? 0);
    if (Date.now() + remaining > deadline) {
      throw new AriadneError(
        "RUN_LEASED",
        409,
        `run ${runId} is held by ${row.leaseOwner ?? "another process"} for ${Math.ceil(remaining / 1000)} s more; stop that process, or wait and resume again`,
      );
    }
    options.log?.(`run ${runId} is held by ${row.leaseOwner}; waiting ${Math.ceil(remaining / 1000)} s for its lease to run out`);
    await new Promise((r) => setTimeout(r, Math.min(remaining + 50, 1_000)));
  }
}
