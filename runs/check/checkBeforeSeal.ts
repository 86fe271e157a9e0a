import type { Runtime } from "../../actors/index.ts";
import type { Outcome } from "../../actors/fold/executorState.ts";
import { type CheckResult, type Reread, checkAnswer, sourceKey } from "../../checker/checkAnswer.ts";
import { isDiskFull } from "../../core/diskFull.ts";
import { isFencedError } from "../../core/errors.ts";
import type { EventStore, RecordedEvent, TaskSpec } from "../../events/index.ts";
import { type AnswerToCheck, answerToCheck } from "./answerToCheck.ts";
import { appendRunFact } from "../appendRunFact.ts";
import type { RecordedReread } from "./checkerTools.ts";
import { isConnectionError } from "../host/reconnectingStore.ts";
import type { SourceReaders } from "./rereadSources.ts";
import { executorStreamId, runStreamId } from "../../events/index.ts";

type Checker = NonNullable<CheckResult["checker"]>;

/** The Checker's task: the answer's claims by id, as the check tools name them. */
export function checkerTask(input: AnswerToCheck): TaskSpec {
  const claims = input.claims.claims.map((c) => `${c.id} (${c.basis}, section "${c.section}"): ${c.text}`);
  return {
    question: "Check Main's drafted answer, claim by claim, before the run is sealed.",
    context: `Summary: ${input.summary}\n\nClaims:\n${claims.join("\n")}`,
    doneWhen: `One verdict per claim (${input.claims.claims.map((c) => c.id).join(", ")}), each resting on the check tools' outputs.`,
  };
}

/** The sources as the Checker's last reread_sources call read them, the texts from the blobs it kept. */
async function recordedRereads(store: EventStore, checkerId: string, readers: SourceReaders): Promise<Map<string, Reread>> {
  const call = (await store.readStream(executorStreamId(checkerId))).findLast((e): e is RecordedEvent<"tool_completed"> => e.type === "tool_completed" && e.data.tool === "reread_sources");
  const out = new Map<string, Reread>();
  if (!call) return out;
  const { sources } = JSON.parse(call.data.output) as { sources: { reread: RecordedReread | null }[] };
  for (const { reread } of sources) {
    if (!reread) continue;
    const { currentTextSha256, ...rest } = reread;
    const bytes = currentTextSha256 ? await readers.blobs.get(currentTextSha256) : null;
    out.set(sourceKey(reread.url, reread.recordedRawSha256), { ...rest, currentText: bytes ? new TextDecoder().decode(bytes) : null });
  }
  return out;
}

/**
 * The tools' verdicts (checkAnswer over what the Checker's tools recorded) with
 * the Checker's own: it may flag what the tools passed, never pass what they flagged.
 */
export function mergeVerdicts(tools: CheckResult, submitted: Extract<Outcome, { kind: "check" }>["check"], checker: Checker): CheckResult {
  const given = new Map(submitted.verdicts.map((v) => [v.claimId, v]));
  const claims = tools.claims.map((c) => {
    const v = given.get(c.claimId);
    if (!v) return { ...c, notes: [...c.notes, "the Checker gave no verdict on it: the tools' verdict stands"] };
    if (v.verdict === c.verdict) return v.note && c.verdict === "flagged" ? { ...c, notes: [...c.notes, `Checker: ${v.note}`] } : c;
    if (v.verdict === "flagged") return { ...c, verdict: "flagged" as const, notes: [...c.notes, `flagged by the Checker: ${v.note ?? "no reason given"}`] };
    return { ...c, notes: [...c.notes, `the Checker said ${v.verdict}; the tools' outputs say ${c.verdict}, which stands`] };
  });
  // The Checker can only make the verdict worse: a flag of its own turns supported or unsupported into flagged.
  const flagged = tools.verdict === "flagged" || claims.some((c) => c.verdict === "flagged");
  const { verdictReason, ...rest } = tools;
  return flagged ? { ...rest, verdict: "flagged", claims, checker } : { ...tools, claims, checker };
}

/** A check that did not finish: recorded as incomplete, with no verdicts, never as passed. */
const incomplete = (input: AnswerToCheck, checker: Checker): CheckResult => ({
  answerEventId: input.claims.answer.eventId,
  verdict: "incomplete",
  claims: [],
  summary: { numbers: [], unsupportedNumbers: [] },
  advice: [],
  sources: [],
  artifacts: [],
  checker,
});

/**
 * After Main answers and before the run is sealed: the run's Checker executor
 * (actors/runtime.ts `check`) checks the answer with its tools, and its result
 * is recorded once as `check_completed`. A resumed run whose check is already
 * recorded is not checked again; one whose Checker was cut off goes on with it
 * (the executors' own recovery rules). A Checker that fails or is stopped by a
 * limit or the budget leaves the check incomplete, and the run is sealed anyway.
 */
export async function checkBeforeSeal(store: EventStore, runtime: Runtime, ids: { runId: string; mainExecutorId: string }, readers: SourceReaders): Promise<void> {
  const done = (await store.readStream(runStreamId(ids.runId))).some((e) => e.type === "check_completed" && e.data.checker);
  if (done) return;
  const input = await answerToCheck(store, readers.blobs, ids.runId);
  let result: CheckResult;
  try {
    const { executorId, model, outcome } = await runtime.check(ids.runId, checkerTask(input));
    if (outcome.kind !== "check" || outcome.check.forced) {
      const reason = outcome.kind === "check" ? (outcome.check.reason ?? "stopped before its verdicts") : `${outcome.kind}: ${"reason" in outcome ? outcome.reason : "no verdicts"}`;
      result = incomplete(input, { executorId, model, state: "incomplete", reason });
    } else {
      const tools = checkAnswer({ ...input, rereads: await recordedRereads(store, executorId, readers) });
      result = mergeVerdicts(tools, outcome.check, { executorId, model, state: "completed" });
    }
  } catch (e) {
    // The run's owner changed, the database is away or full: nothing is recorded here; whoever hosts the run next checks it.
    if (isFencedError(e) || isConnectionError(e) || isDiskFull(e)) throw e;
    result = incomplete(input, { executorId: null, model: "none", state: "incomplete", reason: `the Checker could not run: ${(e as Error).message}` });
  }
  await appendRunFact(store, ids, { type: "check_completed", data: result });
}
