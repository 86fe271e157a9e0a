import type { RecordedEvent } from "../../events/types.ts";
import { type BundleRun, type DerivedFile, mainAdmission, safeName, textFile } from "../bundleRun.ts";
import { claimsOf } from "../claimsOf.ts";
import { findingAnchor } from "./findings.ts";

/** answer.md: Main's answer, each claim labelled with its id (as claims.jsonl and `ariadne audit` name it) and basis, and linked to the findings it cites. */
export function writeAnswer(run: BundleRun): DerivedFile[] {
  const main = mainAdmission(run);
  const settled = main && run.events.find((e): e is RecordedEvent<"settled"> => e.type === "settled" && e.metadata.executorId === main.metadata.executorId);
  const summary = (settled?.data.answer as { summary?: string } | undefined)?.summary;
  if (!settled || !settled.data.answer) {
    const end = main && run.events.find((e) => (e.type === "failed" || e.type === "cancelled") && e.metadata.executorId === main.metadata.executorId);
    const why = end ? `Main ${end.type}: ${(end.data as { reason: string }).reason}` : "Main has not answered";
    return [textFile("answer.md", `# Answer\n\nNo answer: ${why}.\n`)];
  }
  const lines = ["# Answer", ""];
  if (settled.data.partial) lines.push("**PARTIAL ANSWER**: Main was stopped by a limit, or no claim cites a Child's finding.", "");
  lines.push(summary ?? "");
  let section: number | undefined;
  for (const claim of claimsOf(run).claims) {
    if (claim.sectionIndex !== section) lines.push("", `## ${claim.section}`, "");
    section = claim.sectionIndex;
    const refs = claim.findings.map((f) => `[${f.executorId} finding ${f.finding + 1}](findings/${safeName(f.executorId)}.md#${findingAnchor(f.finding)})`);
    lines.push(`- [${claim.id}] ${claim.text} (${claim.basis.replace("_", " ")}${refs.length ? `; cites ${refs.join(", ")}` : "; no evidence cited"})`);
  }
  return [textFile("answer.md", `${lines.join("\n")}\n`)];
}
