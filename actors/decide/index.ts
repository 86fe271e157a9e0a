export { decideCancel, cancelRequest, type InFlight } from "./cancel.ts";
export { decideChildOutcome, type ChildResult } from "./childOutcome.ts";
export { LIMIT_LABELS, type Draft } from "./draft.ts";
export { exhaust, exhaustWithAnswer, exhaustWithHandoff, stopCaveat } from "./exhaust.ts";
export { finish, finishWithAnswer, finishWithHandoff, handoffFacts, heldHandoffs, unknownEffectsOf } from "./finish.ts";
export { decideNext, intentKey, type Next } from "./next.ts";
export { decideCall, screenCall, type CallFact } from "./planCalls.ts";
export { decideRecovery, idempotencyKeyOf } from "./recovery.ts";
export { toolCompleted, toolThrew } from "./toolOutcome.ts";
