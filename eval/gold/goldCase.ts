import { z } from "zod";

/** How a gold answer is compared with the answer given (gradeAnswer.ts). */
export const AnswerType = z.enum(["number", "text", "list", "set"]);
export type AnswerType = z.infer<typeof AnswerType>;

/**
 * One case of a research benchmark: one JSON line of a suite file.
 * `corpus` is a folder of the shared corpus's layout (web/manifest.jsonl,
 * pdf/manifest.jsonl, data/), relative to the suite file; `evidence` the URLs
 * (as the corpus manifests give them) the gold answer was read from;
 * `tolerance` the absolute difference a number answer may be off by.
 */
export const GoldCaseLine = z
  .object({
    id: z.string().regex(/^[\w.-]+$/, "an id of letters, digits, '.', '_' or '-'"),
    question: z.string().trim().min(1),
    answer: z.union([z.number(), z.string().trim().min(1), z.array(z.string().trim().min(1)).min(1)]),
    answer_type: AnswerType,
    tolerance: z.number().nonnegative().default(0),
    evidence: z.array(z.url()).min(1),
    corpus: z.string().min(1),
    /** Where the gold answer stands in its source (the sentence or cell), for whoever checks the case. */
    note: z.string().optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const is = c.answer_type === "number" ? typeof c.answer === "number" : c.answer_type === "text" ? typeof c.answer === "string" : Array.isArray(c.answer);
    if (!is) ctx.addIssue({ code: "custom", path: ["answer"], message: `an answer of type ${c.answer_type} is ${c.answer_type === "number" ? "a number" : c.answer_type === "text" ? "a string" : "an array of strings"}` });
    if (c.tolerance > 0 && c.answer_type !== "number") ctx.addIssue({ code: "custom", path: ["tolerance"], message: "only a number answer has a tolerance" });
  });
export type GoldCaseLine = z.output<typeof GoldCaseLine>;

export interface GoldCase extends GoldCaseLine {
  /** The corpus folder, resolved against the suite file's folder. */
  corpusDir: string;
  /** The line of the suite file it was read from (1-based). */
  line: number;
}
