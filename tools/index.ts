export { checkToolCall, type ToolCallCheck, type ToolCallRefusal } from "./checkToolCall.ts";
export {
  computeGrant,
  DELEGATE_TOOL,
  type Grant,
  type GrantInput,
  type GrantRefusal,
  type GrantRefusalReason,
} from "./computeGrant.ts";
export { CAPABILITIES, type Capability, capabilitiesOf, capabilityConflict } from "./capabilities.ts";
export { defineTool, type Tool, type ToolContext, type ToolDefinition, type ToolEffect, type ToolOutput, type ToolResult } from "./defineTool.ts";
export { parseToolInput, type ToolInputCheck } from "./parseToolInput.ts";
export { ToolDefinitionError, ToolError, ToolRefusedError, isToolRefused } from "./toolErrors.ts";
export { ToolRegistry } from "./toolRegistry.ts";
export { inputJsonSchema, toolSpec } from "./toolSpec.ts";
export * from "./demo/index.ts";
export * from "./workspace/index.ts";
export * from "./documents/index.ts";
export * from "./compute/index.ts";
export * from "./web/index.ts";
