import { AriadneError } from "../core/errors.ts";
import { DEFAULT_SCENARIO, findScenario, scenarioNames } from "../scenarios/index.ts";

/** What a submitter asked for: a question for the configured model, or a scripted offline scenario. */
export interface RunRequest {
  /** As given; undefined when none was. */
  question?: string;
  /** A scenario by name (scenarios/index.ts); implies offline. */
  scenario?: string;
  /** The offline scenario (the default one unless `scenario` names another). */
  offline?: boolean;
  /** The question answered by the scripted baseline researcher, not a language model (`--model baseline`). */
  baseline?: boolean;
}

export type ChosenRun =
  | { kind: "model"; question: string }
  /** The question, answered by the scripted baseline researcher: no model is needed. */
  | { kind: "baseline"; question: string }
  /** `asked`: the request named the scenario; `no_question`: nothing was asked, so the default one runs. */
  | { kind: "scenario"; scenario: string; question: string; why: "asked" | "no_question" };

/** A request that cannot make a run (blank question, unknown scenario, a question and a scenario at once). */
export class RunRequestError extends AriadneError {
  constructor(message: string) {
    super("RUN_REQUEST", 422, message);
  }
}

/** A question with no model to ask it: refused, never answered by a scripted scenario instead. */
export class ModelNotConfiguredError extends AriadneError {
  constructor() {
    super(
      "MODEL_NOT_CONFIGURED",
      422,
      `no model is configured, so the question cannot be asked: set ANTHROPIC_API_KEY (or ask for the offline scripted scenario: --scenario ${DEFAULT_SCENARIO}, or "offline": true in the API)`,
    );
  }
}

export const BLANK_QUESTION = "the question is blank: pass a question, or none for the offline scripted demo";

/**
 * Which run a submission makes, for the command line and the API alike. A
 * question goes to the configured model, and without one it is refused, never
 * answered by the demo; the offline scenario runs only when asked for or, where
 * the caller allows it (`nothingAsked: "scenario"`, the command line), when
 * nothing was asked at all.
 */
export function chooseRun(request: RunRequest, context: { modelConfigured: boolean; nothingAsked: "scenario" | "refuse" }): ChosenRun {
  const { question, scenario } = request;
  if (question !== undefined && question.trim() === "") throw new RunRequestError(BLANK_QUESTION);
  if (request.baseline) {
    if (scenario !== undefined || request.offline) throw new RunRequestError("a scenario runs its own script; the baseline researcher (--model baseline) answers a question: pass a question, not a scenario");
    if (question === undefined) throw new RunRequestError("the baseline researcher (--model baseline) answers a question: pass one");
    return { kind: "baseline", question: question.trim() };
  }
  if (scenario !== undefined || request.offline) {
    const name = scenario ?? DEFAULT_SCENARIO;
    const found = findScenario(name);
    if (!found) throw new RunRequestError(`unknown scenario "${name}"; known scenarios: ${scenarioNames().join(", ")}`);
    if (question !== undefined) throw new RunRequestError(`scenario ${name} asks its own question; pass a question or a scenario, not both`);
    return { kind: "scenario", scenario: name, question: found.question, why: "asked" };
  }
  if (question !== undefined) {
    if (!context.modelConfigured) throw new ModelNotConfiguredError();
    return { kind: "model", question: question.trim() };
  }
  if (context.nothingAsked === "refuse") throw new RunRequestError(`a question is required (or ask for the offline scripted scenario: --offline, or "offline": true in the API)`);
  return { kind: "scenario", scenario: DEFAULT_SCENARIO, question: findScenario(DEFAULT_SCENARIO)!.question, why: "no_question" };
}
