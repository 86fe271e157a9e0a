import type { Answer } from "../../actors/answer.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { type BundleRun, type DerivedFile, mainAdmission, safeName, textFile } from "../bundleRun.ts";
import { answerClaims } from "../claimIds.ts";
import { findingAnchor } from "./findings.ts";

/** answer.md: Main's answer, each claim labelled with its id and basis and linked to the findings it cites. */
export function writeAnswer(run: BundleRun): DerivedFile[] {
  const main = mainAdmission(run);
  const settled = main && run.events.find((e): e is RecordedEvent<"settled"> => e.type === "settled" && e.metadata.executorId === main.metadata.executorId);
  const answer = settled?.data.answer as Partial<Answer> | undefined;
  if (!settled || !answer) {
    const end = main && run.events.find((e) => (e.type === "failed" || e.type === "cancelled") && e.metadata.executorId === main.metadata.executorId);
    const why = end ? `Main ${end.type}: ${(end.data as { reason: string }).reason}` : "Main has not answered";
    return [textFile("answer.md", `# Answer\n\nNo answer: ${why}.\n`)];
  }
  const lines = ["# Answer", ""];
  if (settled.data.partial) lines.push("**PARTIAL ANSWER**: Main was stopped by a limit, or no claim cites a Child's finding.", "");
  lines.push(answer.summary ?? "");
  let heading: string | undefined;
  for (const { id, heading: h, claim } of answerClaims(answer)) {
    if (h !== heading) lines.push("", `## ${(heading = h)}`, "");
    const cites = claim.citations ?? [];
    const refs = cites.map((c) => `[${c.executor} finding ${c.finding + 1}](findings/${safeName(c.executor)}.md#${findingAnchor(c.finding)})`);
    lines.push(`- [${id}] ${claim.text} (${claim.basis.replace("_", " ")}${refs.length ? `; cites ${refs.join(", ")}` : "; no evidence cited"})`);
  }
  return [textFile("answer.md", `${lines.join("\n")}\n`)];
}
