import { type CheckResult, checkAnswer } from "../checker/checkAnswer.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { answerToCheck } from "./check/answerToCheck.ts";
import { appendRunFact } from "./appendRunFact.ts";
import { type SourceReaders, rereadSources } from "./check/rereadSources.ts";

/**
 * Checks a settled run's answer again (checker/checkAnswer.ts) against the
 * stored texts of what it cites and its sources read again now, and records the
 * verdicts as `check_completed` in the run's stream: `ariadne check RUN`, the
 * deterministic checker alone, on demand. The run's executor streams are not
 * written: the seal, which covers them, still holds.
 */
export async function checkRun(store: EventStore, runId: string, readers: SourceReaders): Promise<{ result: CheckResult; recorded: RecordedEvent<"check_completed"> }> {
  const input = await answerToCheck(store, readers.blobs, runId);
  const result = checkAnswer({ ...input, rereads: await rereadSources(runId, input.claims, readers) });
  await appendRunFact(store, { runId, mainExecutorId: input.claims.answer.executorId }, { type: "check_completed", data: result });
  const recorded = (await store.readRun(runId)).findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed")!;
  return { result, recorded };
}
