import type { ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import type { ComputeReport } from "../../tools/compute/runCompute.ts";
import { exchanges, resultsOf, turnsTaken } from "../requestView.ts";
import { DATA_FILE, DATA_URL, isVariant, resultFile, variantProgram } from "./variants.ts";

/** What the Child's task says: its variant and the stored data's sha256 (Main puts both in the context). */
function taskOf(request: ModelRequest): { variant: string; sha256: string } | null {
  const first = request.messages[0];
  const text = typeof first?.content === "string" ? first.content : (first?.content ?? []).map((b) => ("text" in b ? b.text : "")).join("\n");
  const variant = /^variant: (\S+)$/m.exec(text)?.[1];
  const sha256 = /\bsha256 ([0-9a-f]{64})\b/.exec(text)?.[1];
  return variant && sha256 ? { variant, sha256 } : null;
}

/**
 * A compute-analyst Child of the pc-measures scenario: one compute call running
 * its variant over the stored CSV (the result file it writes is published as an
 * artifact), then a handoff whose one finding quotes the printed line and cites
 * that call, with the data, code and result hashes in its measurement basis.
 */
export function variantChildPolicy(request: ModelRequest): ScriptedReply {
  const task = taskOf(request);
  if (!task || !isVariant(task.variant)) {
    return handoff({ summary: "No variant or data sha256 in the task.", findings: [], sources: [], artifacts: [], gaps: ["The task named no known variant and no data sha256, so nothing was computed."] });
  }
  const { variant, sha256 } = task;
  if (turnsTaken(request) === 0) {
    return {
      content: [
        { type: "text", text: `(scripted) Running ${variant} on the first 200 rows of ${DATA_FILE} in the sandbox.` },
        { type: "tool_use", name: "compute", input: { language: "python", code: variantProgram(variant), inputs: [{ sha256, name: DATA_FILE }] } },
      ],
    };
  }
  const [run] = resultsOf(request, "compute");
  const report = run ? (JSON.parse(run.output) as ComputeReport) : null;
  const written = report?.files_written.find((f) => f.path === resultFile(variant));
  const line = report?.status === "ok" ? report.stdout.trim().split("\n").at(-1) : undefined;
  if (!run || !report || !written || !line) {
    const failed = exchanges(request).find((x) => x.use.name === "compute")?.result?.content ?? report?.stderr ?? "no result";
    return handoff({ summary: `${variant}: not computed.`, findings: [], sources: [], artifacts: [], gaps: [`compute did not produce ${resultFile(variant)}: ${failed.slice(0, 400)}`] });
  }
  const artifact = { id: written.artifact_id, path: written.path, sha256: written.sha256 };
  return handoff({
    summary: `${variant}: invest on value and capital, first 200 Grunfeld rows, computed once in the sandbox.`,
    findings: [
      {
        // The printed line itself, so every number in the claim is one the cited output shows.
        claim: `Variant ${variant} (statsmodels, first 200 rows of ${DATA_FILE}) printed: ${line}`,
        // The line as the call's stdout (a stored blob) has it.
        evidence: { toolResults: [run.id], citations: [], quotes: [{ toolUseId: run.id, text: line }] },
        confidence: "high",
      },
    ],
    sources: [
      `${DATA_URL} (stored blob sha256 ${sha256}; first 200 rows: 10 firms, 1935-1954)`,
      `program: scenarios/pcMeasures/regression_variants.py run for ${variant}; code sha256 ${report.record.code_sha256}`,
      `result: artifact ${artifact.id} at ${artifact.path}, sha256 ${artifact.sha256}, ${written.bytes} bytes`,
    ],
    artifacts: [artifact],
    gaps: [],
  });
}

function handoff(h: { summary: string; findings: unknown[]; sources: string[]; artifacts: { id: string; path: string; sha256: string }[]; gaps: string[] }): ScriptedReply {
  const done = h.findings.length > 0;
  return {
    content: [
      {
        type: "tool_use",
        name: "handoff",
        input: {
          summary: `[compute-analyst] (scripted) ${h.summary}`,
          findings: h.findings,
          measurementBasis: {
            sources: h.sources,
            dates: ["1935-1954"],
            units: ["coefficients and standard errors in units of invest per unit of value and of capital", "obs: observations"],
            scope: "Grunfeld (1950), first 200 rows (10 firms x 20 years); invest regressed on value and capital; one standard-error variant.",
          },
          artifacts: h.artifacts,
          gaps: h.gaps,
          executionState: done ? "completed" : "not_executed",
          confidence: done ? "high" : "low",
          caveats: ["Produced by a scripted model; the numbers are the sandboxed program's output."],
        },
      },
    ],
  };
}
