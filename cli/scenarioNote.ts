import type { ChosenRun } from "../runs/index.ts";

/** The one line on stderr saying why a scripted scenario runs rather than the model. */
export function scenarioNote(choice: Extract<ChosenRun, { kind: "scenario" }>, modelConfigured: boolean): string {
  if (choice.why === "asked") return `scenario ${choice.scenario}: scripted models, offline; no model is called.`;
  return modelConfigured
    ? 'note: no question was given, so the offline scripted demo runs, not the real model; pass one (ariadne run "QUESTION") to ask it.'
    : "offline scenario: scripted models over a synthetic corpus (set ANTHROPIC_API_KEY and pass a question for a real run).";
}
