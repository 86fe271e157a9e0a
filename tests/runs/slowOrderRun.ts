import { z } from "zod";
import { Runtime } from "../../actors/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import type { BuildRuntime } from "../../runs/index.ts";
import { exchanges } from "../../scenarios/requestView.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { gate } from "../actors/fixtures.ts";

/**
 * Main places an order with an effectful tool, then answers. The tool returns
 * only once `open()` is called: a test can interrupt, take over or "kill" the
 * run while the effect is in flight. `counter` says how often it ran and when
 * it first started.
 */
export function slowOrderRun() {
  const opened = gate();
  const counter = { runs: 0, started: gate() };
  const tool = defineTool({
    name: "place_order",
    description: "Places an order (slow).",
    input: z.object({ id: z.string() }),
    effect: "effectful",
    run: async () => {
      counter.runs++;
      counter.started.open();
      await opened.opened;
      return "order placed";
    },
  });
  const model = new ScriptedModel({
    name: "slow-order",
    policy: (request) =>
      exchanges(request).length === 0
        ? { content: [{ type: "tool_use", name: "place_order", input: { id: "o-1" } }] }
        : {
            content: [
              {
                type: "tool_use",
                name: "answer",
                input: { summary: "(scripted) done", sections: [{ heading: "Order", claims: [{ text: "The order went out.", basis: "judgment", citations: [] }] }] },
              },
            ],
          },
  });
  const build: BuildRuntime = (store) =>
    new Runtime({ store, models: { main: model, child: model }, modelNames: { main: "m", child: "c" }, tools: new ToolRegistry().register(tool) });
  return { build, counter, open: opened.open };
}
