export type * from "./types.ts";
export { AnthropicModel, type AnthropicModelConfig } from "./anthropicModel.ts";
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
export { ModelCallError, isModelCallError, type ModelCallErrorKind, type ModelCallErrorInit } from "./modelCallError.ts";
export { createModel, resolveModels, DEFAULT_MODELS, type Env, type ModelRole } from "./config.ts";
export { estimateUsage } from "./estimateUsage.ts";
export { StreamStalledError } from "./idleTimeoutFetch.ts";
