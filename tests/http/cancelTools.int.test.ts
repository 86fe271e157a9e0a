import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { runTools } from "../../runs/index.ts";
import { type Tool, type ToolContext, ToolRegistry } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { type Harness, bearer, openHarness, postJson, waitForFinal } from "./harness.ts";

/** Tool calls in flight (by executor) and the ones that saw their AbortSignal fire. */
const started = new Set<string>();
const aborted: { executorId: string; tool: string }[] = [];

/** The CLI's tools with the same specs, each call held until its signal aborts (or 20 s pass), then run. */
function watchedTools(): ToolRegistry {
  const base = runTools();
  const hold = async (tool: Tool, ctx: ToolContext) => {
    started.add(ctx.executorId);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 20_000);
      ctx.signal.addEventListener("abort", () => (clearTimeout(t), aborted.push({ executorId: ctx.executorId, tool: tool.name }), resolve()), { once: true });
    });
    if (ctx.signal.aborted) throw ctx.signal.reason;
  };
  return new ToolRegistry().register(
    ...base.names().map((name) => {
      const tool = base.get(name)!;
      return Object.freeze({
        ...tool,
        runSanitized: async (input: unknown, ctx: ToolContext) => (await hold(tool, ctx), tool.runSanitized(input, ctx)),
        run: async (input: unknown, ctx: ToolContext) => (await hold(tool, ctx), tool.run(input, ctx)),
      }) as Tool;
    }),
  );
}

forEachEngine("cancelling through the API reaches the Children's tools", (ctx) => describe("cancel", () => {
  let h: Harness;
  before(async () => {
    h = await openHarness(ctx.store, { scriptedLatencyMs: 20, tools: watchedTools });
  });
  after(() => h.close());

  test("POST /v1/runs/{id}/cancel while Children's tools are in flight: each tool sees its AbortSignal, the run ends cancelled", { timeout: 120_000 }, async () => {
    const k = await h.key("client", h.tenant());
    const run = (await (await h.app.request("/v1/runs", postJson(k, { offline: true, context: "stop the tools" }))).json()) as any;
    let view: any;
    for (let i = 0; i < 600; i++) {
      view = (await (await h.app.request(`/v1/runs/${run.id}`, { headers: bearer(k) })).json()) as any;
      if (view.executors.children.some((c: any) => started.has(c.id))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const working = view.executors.children.filter((c: any) => started.has(c.id)).map((c: any) => c.id);
    assert.ok(working.length > 0, "a Child's tool call is in flight");
    assert.equal((await h.app.request(`/v1/runs/${run.id}/cancel`, { method: "POST", headers: bearer(k) })).status, 202);

    const final = await waitForFinal(h.app, k, run.id);
    assert.equal(final.state, "cancelled");
    const children = new Set(final.executors.children.map((c: any) => c.id));
    const reached = aborted.filter((a) => children.has(a.executorId));
    assert.ok(reached.length > 0, "a Child's tool saw its AbortSignal");
    for (const id of working) assert.equal(final.executors.children.find((c: any) => c.id === id).status, "cancelled");
    const events = (await (await h.app.request(`/v1/runs/${run.id}/events?limit=1000`, { headers: bearer(k) })).json()) as any;
    assert.ok(events.events.some((e: any) => e.type === "cancel_requested"), "the cancel was a request to the live host");
  });
}));
