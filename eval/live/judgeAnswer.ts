import { z } from "zod";
import type { Model, ModelRequest } from "../../models/types.ts";

/** The rubric a live answer is judged on, each criterion scored 1 (poor) to 5 (excellent). */
export const RUBRIC = ["factual_accuracy", "citation_accuracy", "completeness", "source_quality", "tool_efficiency"] as const;

export const Verdict = z.object({
  scores: z.object(Object.fromEntries(RUBRIC.map((c) => [c, z.number().int().min(1).max(5)])) as Record<(typeof RUBRIC)[number], z.ZodNumber>),
  pass: z.boolean(),
  rationale: z.string(),
});
export type Verdict = z.infer<typeof Verdict>;

export interface JudgedAnswer {
  question: string;
  /** The answer as the user reads it: summary, sections, claims with their basis. */
  answer: string;
  /** The findings its citations lead to, with their quotes: what the judge checks the claims against. */
  evidence: string;
  expected: string[];
  /** Turns and tool calls the run took. */
  effort: string;
}

export const JUDGE_SYSTEM = `You judge a research agent's answer. Score each criterion from 1 (poor) to 5 (excellent):
factual_accuracy (claims agree with the evidence), citation_accuracy (each cited finding supports its claim),
completeness (the question and the expected items are covered), source_quality (the sources fit the question),
tool_efficiency (no needless turns, tool calls or duplicate reads). pass is true only when no criterion is below 3
and factual_accuracy and citation_accuracy are at least 4. Give your verdict with the verdict tool only.`;

const VERDICT_TOOL = {
  name: "verdict",
  description: "Your verdict on the answer against the rubric.",
  input_schema: z.toJSONSchema(Verdict) as Record<string, unknown>,
};

function judgeRequest(a: JudgedAnswer, model: string): ModelRequest {
  const text = [
    `Question: ${a.question}`,
    `Expected items: ${a.expected.length ? a.expected.join("; ") : "none named"}`,
    `Answer:\n${a.answer}`,
    `Evidence the answer cites:\n${a.evidence || "(none)"}`,
    `Effort: ${a.effort}`,
  ].join("\n\n");
  return { model, system: JUDGE_SYSTEM, messages: [{ role: "user", content: text }], tools: [VERDICT_TOOL], maxTokens: 1024 };
}

/** One verdict from the judge model; a reply without a valid verdict is an error naming what was wrong. */
export async function judgeOnce(judge: Model, a: JudgedAnswer, model: string): Promise<Verdict> {
  const response = await judge.complete(judgeRequest(a, model));
  const call = response.content.find((b) => b.type === "tool_use" && b.name === "verdict");
  if (!call || call.type !== "tool_use") throw new Error("the judge gave no verdict tool call");
  const parsed = Verdict.safeParse(call.input);
  if (!parsed.success) throw new Error(`the judge's verdict is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

/**
 * A judged answer: a passing first verdict stands; a failing one is judged
 * twice more and the majority of the three is kept, so one unlucky verdict
 * neither fails nor passes a trial on its own.
 */
export async function judgeAnswer(judge: Model, a: JudgedAnswer, model: string): Promise<{ pass: boolean; verdicts: Verdict[] }> {
  const first = await judgeOnce(judge, a, model);
  if (first.pass) return { pass: true, verdicts: [first] };
  const verdicts = [first, await judgeOnce(judge, a, model), await judgeOnce(judge, a, model)];
  return { pass: verdicts.filter((v) => v.pass).length >= 2, verdicts };
}
