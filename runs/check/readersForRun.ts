import { AriadneError } from "../../core/errors.ts";
import type { Database } from "../../db/openDatabase.ts";
import type { EventStore, RecordedEvent } from "../../events/index.ts";
import type { BuildRuntime } from "../host/hostRun.ts";
import type { SourceReaders } from "./rereadSources.ts";
import { type RunLease, RunOptions } from "../lease/runLease.ts";
import { runStreamId } from "../../events/index.ts";

/**
 * How `ariadne check` reads a run's sources again: as the host that ran it would, from the options its
 * run_submitted fact recorded (an offline scenario's corpus map); a run with none is read as a model run.
 */
export async function readersForRun(database: Database, store: EventStore, runId: string, build: BuildRuntime): Promise<SourceReaders> {
  if (!build.sourceReaders) throw new AriadneError("NO_READERS", 500, "this host cannot read sources again");
  const facts = await store.readStream(runStreamId(runId));
  const submitted = facts.find((e): e is RecordedEvent<"run_submitted"> => e.type === "run_submitted");
  const options = RunOptions.parse(submitted?.data.options ?? {});
  const lease: RunLease = { runId, mainExecutorId: submitted?.metadata.executorId ?? "", question: submitted?.data.question ?? "", options, owner: "check", epoch: 0, fresh: false };
  return build.sourceReaders(database, lease);
}
