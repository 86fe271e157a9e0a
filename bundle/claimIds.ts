import type { Answer } from "../actors/answer.ts";

/**
 * A claim of Main's answer by its place: `c<section>.<claim>`, both 1-based,
 * as answer.md labels it and `verify DIR --claim` takes it.
 */
export interface AnswerClaim {
  id: string;
  heading: string;
  claim: Answer["sections"][number]["claims"][number];
}

export function answerClaims(answer: Partial<Answer> | undefined): AnswerClaim[] {
  return (answer?.sections ?? []).flatMap((section, s) => (section.claims ?? []).map((claim, c) => ({ id: `c${s + 1}.${c + 1}`, heading: section.heading, claim })));
}
