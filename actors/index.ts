export { Runtime, type RunHandle, type RuntimeOptions } from "./runtime.ts";
export { ExecutorDriver, handoffFacts } from "./executorDriver.ts";
export { executorMachine, foldExecutor, type ExecutorFold, type ExecutorStatus } from "./executorMachine.ts";
export { evolve, foldStream, streamIdOf, type Call, type ExecutorState, type Outcome } from "./executorState.ts";
export { AnswerSchema, ANSWER_TOOL, validateAnswer, type Answer } from "./answer.ts";
export { DelegateInput } from "./delegation.ts";
export { buildRequest, requestDigest } from "./buildRequest.ts";
export { limitsGovernance, type Governance } from "./governance.ts";
export { rebuildTranscript, type Transcript, type TranscriptTurn } from "./transcript.ts";
