import path from "node:path";
import { ToolError } from "../toolErrors.ts";

// Ids become folder names: one plain segment each, so no id can climb or branch out of the root.
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** `<workspaceRoot>/<runId>/<executorId>`: the folder the runtime hands an executor as ctx.workspaceDir. */
export function workspaceDirFor(workspaceRoot: string, runId: string, executorId: string): string {
  for (const [name, id] of [["run id", runId], ["executor id", executorId]] as const) {
    if (!SEGMENT.test(id) || id === "." || id === "..") throw new ToolError(`the ${name} "${id}" cannot name a workspace folder`);
  }
  return path.join(path.resolve(workspaceRoot), runId, executorId);
}
