export { COMPUTE_DEFAULTS, openblasEnv, type ComputeLanguage, type ComputeLimits, type ComputeOptions } from "./computeOptions.ts";
export { createComputeTools } from "./computeTools.ts";
export { findDenoBinary } from "./findDenoBinary.ts";
export { runCompute, type ComputeOutcome, type ComputeReport, type ComputeRequest, type ComputeStatus } from "./runCompute.ts";
export { runSandboxed, type CapturedStream, type SandboxOutcome } from "./runSandboxed.ts";
export { SANDBOX_INPUTS, SANDBOX_WORKSPACE, sandboxArgs, type SandboxPlan } from "./sandboxArgs.ts";
export { type ComputeInput } from "./stageInputs.ts";
