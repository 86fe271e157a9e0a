import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { createScratchDatabase } from "../../db/scratchDatabase.ts";
import { openStore } from "../../events/openStore.ts";
import { type OwnCluster, ownClusterUnavailable, startOwnCluster } from "../support/ownCluster.ts";
import { type SmallDisk, mountSmallDisk } from "../support/smallDisk.ts";
import type { startEffectCounter } from "./effectCounter.ts";
import { type InfraResult, diskFullRound, restartRound } from "./infraFaults.ts";

type Counter = Awaited<ReturnType<typeof startEffectCounter>>;

export interface InfraPlan {
  /** PostgreSQL restarts, alternating fast and immediate, each down for a seeded 3-20 s (`downMs` fixes it). */
  restarts: number;
  /** Full disks per engine (PGlite, then PostgreSQL). */
  diskFulls: number;
  runsPerRound?: number;
  downMs?: number;
  log?: (line: string) => void;
}

export interface InfraSoak {
  results: InfraResult[];
  /** Rounds the harness could not carry out (a process that would not start, a deadline): not violations, not dropped either. */
  errors: string[];
  /** Phases that could not run here, with why (no server binaries, no tmpfs). */
  skipped: string[];
}

/** The restart and full-disk phases of the soak, each on a cluster or disk of its own. */
export async function infraSoak(counter: Counter, plan: InfraPlan): Promise<InfraSoak> {
  const results: InfraResult[] = [];
  const skipped: string[] = [];
  const errors: string[] = [];
  const log = plan.log ?? (() => {});
  /** One round; a harness error is kept and the next round goes on, so a long soak keeps what it measured. */
  const round = async (what: string, r: () => Promise<InfraResult>) => {
    try {
      const result = await r();
      results.push(result);
      log(describe(result));
    } catch (e) {
      errors.push(`${what}: ${(e as Error).message.slice(0, 4000)}`);
      log(`${what}: harness error: ${(e as Error).message.slice(0, 300)}`);
    }
  };
  const runs = plan.runsPerRound ?? 3;
  const noCluster = ownClusterUnavailable();

  if (plan.restarts > 0) {
    if (noCluster) skipped.push(`PostgreSQL restarts: ${noCluster}`);
    else {
      const cluster = await startOwnCluster();
      try {
        const scratch = await createScratchDatabase(`ariadne_soak_restart_${process.pid}`, cluster.adminUrl);
        await (await openStore({ url: scratch.url })).close();
        for (let i = 0; i < plan.restarts; i++) {
          const mode = i % 2 === 0 ? "fast" : "immediate";
          // Seeded over 3-20 s, the same for each fast and immediate pair, so both modes meet the whole range.
          const downMs = plan.downMs ?? 3_000 + ((Math.floor(i / 2) * 7919 + 4_321) % 17_001);
          await round(`restart -m ${mode}`, () => restartRound({ cluster, url: scratch.url, counter, seed: 100 + i, runs, mode, downMs }));
        }
      } finally {
        await cluster.destroy();
      }
    }
  }

  if (plan.diskFulls > 0) {
    const disk = await mountSmallDisk(64);
    if (typeof disk === "string") skipped.push(`full disk (PGlite): ${disk}`);
    else {
      try {
        const dataDir = join(disk.dir, "data");
        await (await openStore({ dataDir })).close();
        for (let i = 0; i < plan.diskFulls; i++) {
          await round("disk full (PGlite)", () => diskFullRound({ target: { dataDir }, disk, counter, seed: 200 + i, runs, strikeAfterMs: 3_000 + ((i * 1_511) % 4_000) }));
        }
      } finally {
        await disk.unmount();
      }
    }
    if (noCluster) skipped.push(`full disk (PostgreSQL): ${noCluster}`);
    else await diskFullOnPostgres(counter, plan.diskFulls, runs, skipped, round);
  }
  return { results, errors, skipped };
}

async function diskFullOnPostgres(counter: Counter, rounds: number, runs: number, skipped: string[], round: (what: string, r: () => Promise<InfraResult>) => Promise<void>): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
  const disk: SmallDisk | string = await mountSmallDisk(64, asRoot ? { uid: id("-u"), gid: id("-g") } : undefined);
  if (typeof disk === "string") return void skipped.push(`full disk (PostgreSQL): ${disk}`);
  let cluster: OwnCluster | undefined;
  try {
    // The data files on the small disk, pg_wal off it. A full WAL disk is another fault: PostgreSQL
    // PANICs and stops, which the run sees as a server gone away (the restart tests); and WAL segments
    // the server recycles would give the disk room back in the middle of the test.
    cluster = await startOwnCluster({ baseDir: disk.dir, walOffBaseDir: true });
    const scratch = await createScratchDatabase(`ariadne_soak_disk_${process.pid}`, cluster.adminUrl);
    await (await openStore({ url: scratch.url })).close();
    for (let i = 0; i < rounds; i++) {
      await round("disk full (PostgreSQL)", () => diskFullRound({ target: { url: scratch.url }, disk, counter, seed: 300 + i, runs, strikeAfterMs: 0 }));
    }
  } finally {
    await cluster?.destroy();
    await disk.unmount();
  }
}

export function describe(r: InfraResult): string {
  return `${r.fault} (${r.engine}): ${r.runs} runs, ${r.interrupted} interrupted, ${r.failedExecutors} failed executors, ${r.lost} lost, ${r.doubled} doubled, ${r.violations.length} violations; fault ${(r.faultMs / 1000).toFixed(1)} s, round ${(r.durationMs / 1000).toFixed(0)} s`;
}
