import { z } from "zod";
import type { ModelRequest } from "../models/types.ts";
import { ScriptedModel, type ScriptPolicy, type ScriptedReply } from "../models/index.ts";
import { exchanges, resultsOf, turnsTaken } from "../scenarios/requestView.ts";
import { defineTool } from "../tools/index.ts";

/**
 * The overhead scenario: Main delegates CHILDREN Children in one turn; each Child
 * makes CHILD_TURNS - 1 calls to a trivial read-only tool, one per turn, then
 * hands off; Main answers. The model answers at once, so what is left is the
 * runtime: record, fold, tool, append.
 */
export const CHILDREN = 4;
export const CHILD_TURNS = 10;
/** Main: one turn to delegate, one to answer. */
export const MAIN_TURNS = 2;
export const TURNS_PER_RUN = MAIN_TURNS + CHILDREN * CHILD_TURNS;
export const NOOP_TOOL = "noop_lookup";
const PROFILE = "general";

/** A cheap read-only tool: looks a key up in a constant in-memory table. */
export const noopLookup = defineTool({
  name: NOOP_TOOL,
  description: "Looks a key up in a small in-memory table (benchmark tool).",
  input: z.object({ key: z.string().min(1) }),
  effect: "read_only",
  run: ({ key }) => JSON.stringify({ key, value: `value-of-${key}` }),
});

/**
 * When each executor's model calls happened. The gap between two calls of the
 * same Child is one turn's runtime cost: recording the turn, the tool call and
 * its result, folding them, running the tool and building the next request.
 * Main's gap spans its Children's whole work, so only Child gaps are kept.
 */
export class TurnMarks {
  readonly childGapsMs: number[] = [];
  private readonly last = new Map<string, number>();

  mark(request: ModelRequest): void {
    const now = performance.now();
    const key = executorKey(request);
    const before = this.last.get(key);
    if (before !== undefined && !isMain(request)) this.childGapsMs.push(now - before);
    this.last.set(key, now);
  }
}

/** The scripted model for every executor of the scenario, timing each call it receives. */
export function overheadModel(marks: TurnMarks): ScriptedModel {
  return new ScriptedModel({ name: "overhead-bench", policy: overheadPolicy(marks), latencyMs: 0, keepRequests: false });
}

export function overheadPolicy(marks: TurnMarks): ScriptPolicy {
  return (request) => {
    marks.mark(request);
    return isMain(request) ? mainReply(request) : childReply(request);
  };
}

export const isMain = (request: ModelRequest) => request.tools.some((t) => t.name === "answer");

/** The task text opens every executor's conversation and is unique per executor here. */
export function executorKey(request: ModelRequest): string {
  const first = request.messages[0]?.content;
  return typeof first === "string" ? first : JSON.stringify(first);
}

function mainReply(request: ModelRequest): ScriptedReply {
  const delegated = exchanges(request).some((x) => x.use.name === "delegate");
  if (!delegated) {
    const question = executorKey(request);
    return {
      content: Array.from({ length: CHILDREN }, (_, i) => ({
        type: "tool_use" as const,
        name: "delegate",
        input: {
          question: `${question} / child ${i + 1}: look up ${CHILD_TURNS - 1} keys.`,
          context: "Benchmark task: call noop_lookup once per turn, then hand off.",
          done_when: `${CHILD_TURNS - 1} keys looked up.`,
          profile: PROFILE,
          tools: [NOOP_TOOL],
        },
      })),
    };
  }
  const handoffs = resultsOf(request, "delegate").map((r) => JSON.parse(r.output) as { child_executor_id: string });
  return {
    content: [
      {
        type: "tool_use",
        name: "answer",
        input: {
          summary: `(scripted) ${handoffs.length} Children looked up their keys.`,
          sections: [
            {
              heading: "Lookups",
              claims: [
                ...handoffs.map((h) => ({
                  text: `Child ${h.child_executor_id} looked up its keys.`,
                  basis: "observed" as const,
                  citations: [{ executor: h.child_executor_id, finding: 0 }],
                })),
                { text: "The lookups are enough for this benchmark.", basis: "judgment" as const, citations: [] },
              ],
            },
          ],
        },
      },
    ],
  };
}

function childReply(request: ModelRequest): ScriptedReply {
  const step = turnsTaken(request);
  if (step < CHILD_TURNS - 1) {
    return { content: [{ type: "tool_use", name: NOOP_TOOL, input: { key: `k${step + 1}` } }] };
  }
  const lookups = resultsOf(request, NOOP_TOOL);
  return {
    content: [
      {
        type: "tool_use",
        name: "handoff",
        input: {
          summary: `(scripted) Looked up ${lookups.length} keys.`,
          findings: [
            {
              claim: `All ${lookups.length} keys resolved to a value.`,
              evidence: { toolResults: lookups.map((l) => l.id), citations: [] },
              confidence: "high",
            },
          ],
          measurementBasis: { sources: [NOOP_TOOL], dates: [], units: [], scope: "benchmark keys only" },
          artifacts: [],
          gaps: [],
          executionState: "completed",
          confidence: "high",
          caveats: [],
        },
      },
    ],
  };
}
