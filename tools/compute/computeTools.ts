import { z } from "zod";
import { defineTool, type Tool } from "../defineTool.ts";
import type { ComputeOptions } from "./computeOptions.ts";
import { runCompute } from "./runCompute.ts";

/** compute: the Child's own Python, TypeScript or JavaScript, run in a sandbox over its workspace. */
export function createComputeTools(options: ComputeOptions = {}): Tool[] {
  const computeTool = defineTool({
    name: "compute",
    description:
      "Run code you wrote, in a sandbox: Python 3 (numpy, pandas, statsmodels) or TypeScript/JavaScript (Deno). " +
      "The working folder is your workspace (/workspace): files you write there are kept and published as artifacts. " +
      "Inputs (stored blobs, e.g. a CSV web_fetch stored) are copied read-only to /inputs/<name>. " +
      "No network, no environment variables, nothing outside the workspace and inputs; time, memory and printed output are limited and any limit hit is reported. " +
      "Print the numbers you will cite: stdout is recorded with the code, so each number can be traced to the code that produced it.",
    input: z.object({
      language: z.enum(["python", "typescript", "javascript"]),
      code: z.string().min(1).max(200_000).describe("The whole program. Read inputs from /inputs/<name>; write files relative to the working folder."),
      inputs: z
        .array(
          z.object({
            sha256: z.string().describe("sha256 of a stored blob (a source's rawSha256, an artifact's sha256)."),
            name: z.string().describe('File name under /inputs, e.g. "grunfeld.csv".'),
          }),
        )
        .max(20)
        .optional(),
    }),
    effect: "idempotent",
    async run(input, ctx) {
      const { report, artifacts, sources } = await runCompute(input, ctx, options);
      return { output: JSON.stringify(report), artifacts, sources };
    },
  });
  return [computeTool];
}
