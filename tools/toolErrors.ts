import { AriadneError } from "../core/errors.ts";

/**
 * A tool run that failed in a way the model can act on (unknown document, no
 * match). The runtime turns it into an is_error tool_result carrying the message.
 */
export class ToolError extends AriadneError {
  constructor(message: string) {
    super("TOOL_FAILED", 422, message);
  }
}

/** A tool that cannot be offered to a model as written (bad name, non-object input, duplicate). */
export class ToolDefinitionError extends AriadneError {
  constructor(message: string) {
    super("TOOL_DEFINITION", 500, message);
  }
}

/**
 * A call the tool refuses for a reason the log names (`tool_failed.reason`),
 * such as a fetch of a URL the executor has not seen (`not_reachable`).
 */
export class ToolRefusedError extends ToolError {
  constructor(
    readonly reason: "not_reachable",
    message: string,
  ) {
    super(message);
  }
}

export const isToolRefused = (e: unknown): e is ToolRefusedError => e instanceof ToolRefusedError;
