import { Runtime } from "../actors/index.ts";
import type { EventStore } from "../events/index.ts";
import type { Model } from "../models/types.ts";
import { cliTools } from "./cliTools.ts";

// Reading the log never calls a model; one that is called anyway says so instead of answering.
const noModel: Model = {
  provider: "none",
  scripted: false,
  complete: () => Promise.reject(new Error("this runtime only reads the log and calls no model")),
};

/** A Runtime over the same tools as `ariadne run`, for reading runs back (transcripts), never for running them. */
export function readingRuntime(store: EventStore): Runtime {
  return new Runtime({
    store,
    models: { main: noModel, child: noModel },
    modelNames: { main: "none", child: "none" },
    tools: cliTools(),
  });
}
