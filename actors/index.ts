export { Runtime, type GovernancePorts, type RunHandle, type RuntimeOptions } from "./runtime.ts";
export { defaultReviewPolicy, reviewSubject, type ReviewContext, type ReviewMode, type ReviewPolicy } from "./decide/reviewPolicy.ts";
export { ExecutorRunner } from "./runner.ts";
export { ExecutorActor, liveExecutorLogic, type ExecutorActorOptions, type ExecutorSnapshot } from "./fold/executorActor.ts";
export {
  EXECUTOR_MACHINE,
  UNADMITTED,
  foldEvent,
  foldEvents,
  foldExecutor,
  type ExecutorFold,
  type ExecutorStatus,
  type Folded,
} from "./fold/executorMachine.ts";
export { evolve, type Call, type ExecutorState, type Outcome, type Role, type Stop } from "./fold/executorState.ts";
export { AnswerSchema, ANSWER_TOOL, validateAnswer, type Answer } from "./request/answer.ts";
export { DelegateInput } from "./request/delegation.ts";
export { buildRequest, requestDigest } from "./request/buildRequest.ts";
export { limitsGovernance, type Governance } from "./governance.ts";
export { postToExecutor, type PostResult } from "./postToExecutor.ts";
export { ROLES, roleOf, type Limits, type RoleRecord } from "./request/roles.ts";
export { handoffFacts } from "./decide/finish.ts";
export { rebuildTranscript, type Transcript, type TranscriptTurn } from "./request/transcript.ts";
export { recordedVersion, runVersionNote, versionNote } from "./request/versionNote.ts";
export { requestVersion } from "./request/requestVersion.ts";
export { readTranscript } from "./request/readTranscript.ts";
export { type RequestContextOptions, requestContextOf } from "./request/requestContext.ts";
