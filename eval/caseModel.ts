import type { Model } from "../models/types.ts";
import { findScenario } from "../scenarios/index.ts";
import type { EvalCase } from "./evalCase.ts";
import { corpusLookupModel } from "./scripted/corpusLookupModel.ts";

/** The scripted model of a case (the scripted lane): its scenario's, or its corpus lookup's. */
export function caseModel(c: Pick<EvalCase, "scenario" | "lookup" | "question">): Model {
  if (c.scenario) return findScenario(c.scenario)!.model({});
  return corpusLookupModel(c.question, c.lookup!);
}
