import type { Model } from "../models/types.ts";
import { findScenario } from "../scenarios/index.ts";
import type { EvalCase, Variant } from "./evalCase.ts";
import { corpusLookupModel, corpusLookupSingleAgentModel } from "./scripted/corpusLookupModel.ts";

/** The scripted model of a case (the scripted lane) run as `variant`: its scenario's, or its corpus lookup's. */
export function caseModel(c: Pick<EvalCase, "scenario" | "lookup" | "question">, variant: Variant = "delegating"): Model {
  const single = variant === "single-agent";
  if (c.scenario) return single ? findScenario(c.scenario)!.singleAgentModel({}) : findScenario(c.scenario)!.model({});
  return (single ? corpusLookupSingleAgentModel : corpusLookupModel)(c.question, c.lookup!);
}
