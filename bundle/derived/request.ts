import { type BundleRun, type DerivedFile, mainAdmission, ofType, stableJson, textFile } from "../bundleRun.ts";

/** request.md: what was asked, by whom it was answered, under which options. */
export function writeRequest(run: BundleRun): DerivedFile[] {
  const main = mainAdmission(run);
  const submitted = ofType(run.events, "run_submitted")[0];
  const lines = [`# Request`, "", `Run: ${run.runId}`];
  if (main) {
    lines.push(`Asked at: ${main.recordedAt.toISOString()}`, `Main: executor ${main.metadata.executorId}, model ${main.data.model}`, "", "## Question", "", main.data.task.question);
    if (main.data.task.context) lines.push("", "## Context", "", main.data.task.context);
  } else lines.push("", "Main was never admitted: the run has no question on record.");
  if (submitted) lines.push("", "## Submitted with", "", ...Object.keys(submitted.data.options).sort().map((k) => `- ${k}: ${stableJson(submitted.data.options[k])}`));
  return [textFile("request.md", `${lines.join("\n")}\n`)];
}
