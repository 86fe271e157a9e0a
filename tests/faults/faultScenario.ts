import { randomUUID } from "node:crypto";
import { z } from "zod";
import { Runtime } from "../../actors/index.ts";
import { crashPoint } from "../../core/crashPoint.ts";
import { createRunGovernance } from "../../governance/index.ts";
import { type Caps, CONFIGURED_CAPS } from "../../governance/config.ts";
import { ModelCallError, ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../../models/index.ts";
import type { ModelRequest } from "../../models/types.ts";
import type { BuildRuntime } from "../../runs/index.ts";
import { exchanges, resultsOf } from "../../scenarios/requestView.ts";
import { ToolRegistry, defineTool } from "../../tools/index.ts";
import { handoffsIn, handoffInput } from "../actors/fixtures.ts";

/**
 * The fault scenario: Main calls an effectful tool itself and delegates two
 * Children, each of which calls the effectful tool and a read-only one, then
 * hands off; Main answers from the handoffs. The effectful tool POSTs to a
 * counter the test runs, so a doubled effect is seen outside the log; the
 * read-only one GETs from it, so a re-run read is seen too.
 *
 * So that a crash can meet every event type the runtime writes, beta's first
 * model call in each process fails and is retried (turn_failed), and the run
 * does one more thing, by seed (`variantOf`): asks for a third Child beyond the
 * run's fan-out cap (budget_refused, tool_failed; Main then answers with what it
 * has), or has an advisory Reviewer look at the Children's findings, which
 * either delivers before Main's last turn (review_requested, review_delivered)
 * or is still working when Main answers and is cancelled (cancel_requested,
 * cancelled).
 */
export const CHILDREN = ["alpha", "beta"] as const;
/** Asked for too in the `refused` variant: refused, as that run allows two Children. */
const REFUSED_CHILD = "gamma";
const TWO_CHILDREN: Caps = { ...CONFIGURED_CAPS, delegation: { ...CONFIGURED_CAPS.delegation, maxFanOut: 2 } };

export type Variant = "refused" | "reviewed" | "cancelled";
export const variantOf = (seed: number): Variant => (["refused", "reviewed", "cancelled"] as const)[seed % 3];

export function recordEffectTool(effectUrl: string) {
  return defineTool({
    name: "record_effect",
    description: "Records an external effect (a notice sent, an order placed) at the test's counter.",
    input: z.object({ label: z.string().min(1) }),
    effect: "effectful",
    async run(input, ctx) {
      const res = await fetch(effectUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ runId: ctx.runId, executorId: ctx.executorId, label: input.label }),
      });
      if (!res.ok) throw new Error(`counter answered ${res.status}`);
      // The effect happened; its outcome is not recorded yet.
      crashPoint("after_effect:record_effect");
      return `recorded ${input.label}`;
    },
  });
}

/** A read-only call to the outside world: how many effects this executor has recorded at the counter. */
export function readCounterTool(effectUrl: string) {
  return defineTool({
    name: "read_counter",
    description: "Reads how many effects this executor has recorded at the test's counter.",
    input: z.object({ what: z.literal("effects") }),
    effect: "read_only",
    async run(_input, ctx) {
      const res = await fetch(`${effectUrl}?run=${encodeURIComponent(ctx.runId)}&executor=${encodeURIComponent(ctx.executorId)}`);
      if (!res.ok) throw new Error(`counter answered ${res.status}`);
      const { effects } = (await res.json()) as { effects: number };
      // The read happened; its outcome is not recorded yet.
      crashPoint("after_effect:read_counter");
      return `effects recorded so far: ${effects}`;
    },
  });
}

/** Seeded latencies, so seeds interleave the executors differently. */
function latencies(seed: number) {
  let x = seed * 2654435761 + 1;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return 5 + (x % 60);
  };
}

/**
 * Tool use ids unique across processes, as a real model's are: the scripted
 * model numbers them from 1 in each process, so a run rebuilt after a crash
 * would be handed an id one of its executors already used.
 */
function withFreshIds(reply: ScriptedReply): ScriptedReply {
  return { ...reply, content: reply.content.map((b) => (b.type === "tool_use" && !b.id ? { ...b, id: `toolu_${PROCESS_TAG}_${++toolUses}` } : b)) };
}
const PROCESS_TAG = randomUUID().slice(0, 8);
let toolUses = 0;

export function faultPolicy(seed: number): ScriptPolicy {
  const reply = replies(seed);
  return async (request) => withFreshIds(await reply(request));
}

function replies(seed: number): (request: ModelRequest) => Promise<ScriptedReply> {
  const next = latencies(seed);
  const variant = variantOf(seed);
  let betaFailed = false;
  return async (request) => {
    await new Promise((r) => setTimeout(r, next()));
    if (request.tools.some((t) => t.name === "answer")) return mainReply(request, variant);
    if (isReviewer(request)) {
      // Still working when Main answers: Main's end cancels it.
      if (variant === "cancelled") await new Promise((r) => setTimeout(r, 400));
      return reviewerReply();
    }
    if (!betaFailed && childName(request) === "beta") {
      betaFailed = true;
      throw new ModelCallError({ kind: "overloaded", retryable: true, message: "(scripted) overloaded once per process" });
    }
    return childReply(request);
  };
}

const isReviewer = (request: ModelRequest) => JSON.stringify(request.messages[0]).includes("Review the ");
const childName = (request: ModelRequest) => CHILDREN.find((c) => JSON.stringify(request.messages[0]).includes(`Child ${c}:`)) ?? "unknown";

/** The Reviewer hands off at once, with nothing found: what matters is when it ends against Main. */
function reviewerReply(): ScriptedReply {
  return { content: [{ type: "tool_use", name: "handoff", input: handoffInput("[reviewer] nothing to add") }] };
}

async function mainReply(request: ModelRequest, variant: Variant): Promise<ScriptedReply> {
  if (exchanges(request).length === 0) {
    return {
      content: [
        { type: "tool_use", name: "record_effect", input: { label: "main" } },
        ...[...CHILDREN, ...(variant === "refused" ? [REFUSED_CHILD] : [])].map((name) => ({
          type: "tool_use" as const,
          name: "delegate",
          input: {
            question: `Child ${name}: record your effect and read the counter.`,
            context: "A fault-injection scenario.",
            done_when: "The effect is recorded and the lookup done.",
            profile: "general",
            tools: ["record_effect", "read_counter"],
          },
        })),
      ],
    };
  }
  if (variant === "reviewed" && resultsOf(request, "read_counter").length === 0) {
    // One more turn, late enough for the Reviewer (started as this turn began) to have finished:
    // its advice is delivered with the next one.
    await new Promise((r) => setTimeout(r, 300));
    return { content: [{ type: "tool_use", name: "read_counter", input: { what: "effects" } }] };
  }
  const handoffs = handoffsIn(request);
  return {
    content: [
      {
        type: "tool_use",
        name: "answer",
        input: {
          summary: "(scripted) The Children reported.",
          sections: [
            {
              heading: "Reports",
              claims: handoffs.length
                ? handoffs.map((h) => ({ text: h.handoff.summary, basis: "not_collected", citations: [] }))
                : [{ text: "No handoff arrived.", basis: "not_collected", citations: [] }],
            },
          ],
        },
      },
    ],
  };
}

function childReply(request: ModelRequest): ScriptedReply {
  const name = childName(request);
  if (exchanges(request).length === 0) {
    return {
      content: [
        { type: "tool_use", name: "record_effect", input: { label: name } },
        { type: "tool_use", name: "read_counter", input: { what: "effects" } },
      ],
    };
  }
  const effect = resultsOf(request, "record_effect")[0]?.output ?? "no outcome";
  // A finding resting on the read, so Main has findings for the Reviewer to look at.
  const read = resultsOf(request, "read_counter")[0];
  const findings = read ? [{ claim: `[${name}] ${read.output.slice(0, 80)}`, evidence: { toolResults: [read.id], citations: [] }, confidence: "medium" }] : [];
  return { content: [{ type: "tool_use", name: "handoff", input: handoffInput(`[${name}] effect: ${effect.slice(0, 120)}`, findings) }] };
}

/** `latencyMs`: each scripted reply's delay, so a database fault can land while the run is in flight. */
export function faultRuntime(options: { effectUrl: string; seed: number; latencyMs?: number }): BuildRuntime {
  return (store) => {
    const model = new ScriptedModel({ name: "fault-scenario", policy: faultPolicy(options.seed), latencyMs: options.latencyMs });
    return new Runtime({
      store,
      models: { main: model, child: model, reviewer: model },
      modelNames: { main: "scripted:main", child: "scripted:child", reviewer: "scripted:reviewer" },
      reviewer: "advisory",
      tools: new ToolRegistry().register(recordEffectTool(options.effectUrl), readCounterTool(options.effectUrl)),
      // The run's shared budget, as the command line hosts runs: a crash can leave a reservation open.
      governance: ({ post }) => createRunGovernance({ db: store.database, post, caps: variantOf(options.seed) === "refused" ? TWO_CHILDREN : CONFIGURED_CAPS, reviewer: { mode: "advisory" } }),
    });
  };
}
