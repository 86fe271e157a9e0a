import type { Env } from "../models/config.ts";

export type QuestionChoice =
  | { kind: "blank" }
  | { kind: "real"; question: string }
  /** The offline scripted demo, with the one line saying why it runs. */
  | { kind: "offline"; note: string };

/**
 * Which run `ariadne run` makes of what it was given. A question given but
 * blank is a mistake, never a silent demo; the demo says why it runs.
 */
export function chooseQuestion(question: string | undefined, env: Env): QuestionChoice {
  if (question !== undefined && question.trim() === "") return { kind: "blank" };
  const keySet = !!env.ANTHROPIC_API_KEY;
  if (question !== undefined && keySet) return { kind: "real", question: question.trim() };
  if (question !== undefined) {
    return { kind: "offline", note: "note: ANTHROPIC_API_KEY is not set, so the offline scripted scenario runs instead of your question." };
  }
  return {
    kind: "offline",
    note: keySet
      ? 'note: no question was given, so the offline scripted demo runs, not the real model; pass one (ariadne run "QUESTION") to ask it.'
      : "offline scenario: scripted models over a synthetic corpus (set ANTHROPIC_API_KEY and pass a question for a real run).",
  };
}

export const BLANK_QUESTION = 'the question is blank: pass a question (ariadne run "QUESTION"), or none for the offline scripted demo';
