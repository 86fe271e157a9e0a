import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CheckInput } from "../../checker/checkAnswer.ts";
import type { EventStore, RecordedEvent } from "../../events/index.ts";
import { answerToCheck } from "../../runs/check/answerToCheck.ts";
import { hostRun, leaseOwner, runtimeFactory, submitRun, takeLease } from "../../runs/index.ts";
import { rereadSources } from "../../runs/check/rereadSources.ts";
import { findScenario } from "../../scenarios/index.ts";
import { openblasEnv } from "../../tools/index.ts";
import type { EngineContext } from "../support/forEachEngine.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

export const SCENARIOS = ["etf-overlap", "pc-measures", "morning-briefing"] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/** A scenario run recorded offline with its scripted models, hosted as `ariadne run` hosts it, and what the checker reads of it. */
export interface RecordedRun {
  runId: string;
  events: RecordedEvent[];
  input: CheckInput;
  check: RecordedEvent<"check_completed">["data"];
}

/** Records one scenario offline (the scripted model, the shared corpus) and reads back the check's input, sources read again. */
export async function recordScenario(ctx: Pick<EngineContext, "db" | "store">, scenario: ScenarioName, workspaceRoot?: string): Promise<RecordedRun> {
  const store: EventStore = ctx.store;
  const root = workspaceRoot ?? (await mkdtemp(join(tmpdir(), "ariadne-recorded-")));
  const { runId } = await submitRun(store, { question: findScenario(scenario)!.question, options: { mode: "offline", scenario } });
  const lease = await takeLease(ctx.db.database, { owner: leaseOwner("test"), ttlMs: 60_000, runId });
  const buildRuntime = runtimeFactory({ compute: { passEnv: openblasEnv(process.env) } }, { workspaceRoot: root, corpusDir: sharedCorpusDir() });
  const result = await hostRun({ database: ctx.db.database, store, buildRuntime, ttlMs: 60_000 }, lease!).done;
  if (result.kind !== "finished") throw new Error(`${scenario} did not finish: ${JSON.stringify(result)}`);
  const readers = await buildRuntime.sourceReaders!(ctx.db.database, lease!);
  const base = await answerToCheck(store, readers.blobs, runId);
  const input = { ...base, rereads: await rereadSources(runId, base.claims, readers) };
  const events = await store.readRun(runId);
  const check = events.findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed")!.data;
  return { runId, events, input, check };
}
