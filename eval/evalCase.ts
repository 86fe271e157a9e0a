import { z } from "zod";

/** What the answer must say (coverage) or must not (forbidden): a phrase, matched case-insensitively, or a regular expression. */
export const Item = z.union([
  z.string().min(1),
  z.object({ id: z.string().min(1).optional(), pattern: z.string().min(1) }).strict(),
]);
export type Item = z.infer<typeof Item>;

/**
 * The scripted corpus lookup a case's model performs: a Child reads `url` and
 * quotes the sentence holding each phrase; Main answers from its findings.
 */
export const CorpusLookup = z.object({
  url: z.url(),
  phrases: z.array(z.string().min(1)).min(1),
}).strict();
export type CorpusLookup = z.infer<typeof CorpusLookup>;

/**
 * How a case's run is organised: Main delegating to Children, or one executor
 * holding every tool (`ariadne run --single-agent`), the control isolation is measured against.
 */
export const Variant = z.enum(["delegating", "single-agent"]);
export type Variant = z.infer<typeof Variant>;

/**
 * One case of a suite (`<suite>/<case>/case.json`). Its model is a shipped
 * scenario's (`scenario`) or a corpus lookup (`lookup`); `variant` names how the
 * run is organised (`ariadne eval --single-agent` also runs each case as a single agent).
 */
export const EvalCaseFile = z.object({
  question: z.string().min(1).optional(),
  scenario: z.enum(["etf-overlap", "pc-measures", "morning-briefing"]).optional(),
  lookup: CorpusLookup.optional(),
  /** What the answer must establish: found in its supported observed claims only. */
  expected: z.array(Item).default([]),
  forbidden: z.array(Item).default([]),
  /** What the answer must say it did not collect: found in its not_collected claims. */
  gaps: z.array(Item).default([]),
  /** Files the run must have published (publish_artifact), by name: a table or report the question asks for. */
  artifacts: z.array(z.string().min(1)).default([]),
  /** Coverage a passing answer reaches (share of expected items present); default every item. */
  minCoverage: z.number().min(0).max(1).default(1),
  variant: Variant.default("delegating"),
}).strict().refine((c) => (c.scenario ? 1 : 0) + (c.lookup ? 1 : 0) === 1, { message: "a case names exactly one of scenario or lookup", path: ["scenario"] })
  .refine((c) => c.scenario || c.question, { message: "a lookup case needs its question", path: ["question"] });

export interface EvalCase extends z.infer<typeof EvalCaseFile> {
  /** The case's folder name. */
  id: string;
  question: string;
  /** The folder it was read from (replay recordings live beside it). */
  dir: string;
}

export const itemLabel = (item: Item): string => (typeof item === "string" ? item : item.id ?? `/${item.pattern}/`);

/** Whether a text holds an item: a phrase case-insensitively, whitespace squashed; a pattern as a case-insensitive regex. */
export function holds(text: string, item: Item): boolean {
  const squashed = text.replace(/\s+/g, " ");
  if (typeof item === "string") return squashed.toLowerCase().includes(item.replace(/\s+/g, " ").toLowerCase());
  return new RegExp(item.pattern, "i").test(squashed);
}
