export type * from "./types.ts";
export { AnthropicModel, DEFAULT_IDLE_TIMEOUT_MS, type AnthropicModelConfig } from "./anthropicModel.ts";
export {
  ScriptedModel,
  ScriptExhaustedError,
  type ScriptedBlock,
  type ScriptedModelOptions,
  type ScriptedReply,
  type ScriptPolicy,
  type ScriptStep,
  type UsageRule,
} from "./scriptedModel.ts";
export { ModelCallError, isModelCallError, deadlineError, type ModelCallErrorKind, type ModelCallErrorInit } from "./modelCallError.ts";
export {
  createModel,
  idleTimeoutFromEnv,
  resolveModels,
  DEFAULT_MODELS,
  type CreateModelOptions,
  type Env,
  type ModelRole,
  type ModelSettings,
} from "./config.ts";
export { estimateUsage } from "./estimateUsage.ts";
export { StreamStalledError } from "./idleTimeoutFetch.ts";
