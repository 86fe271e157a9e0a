import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { z } from "zod";
import type { ModelRequest } from "../models/types.ts";
import type { ScriptPolicy, ScriptedReply } from "../models/index.ts";
import { resultsOf, turnsTaken } from "../scenarios/requestView.ts";
import { defineTool } from "../tools/index.ts";
import { executorKey, isMain } from "./overheadScenario.ts";

/**
 * The long-context scenario: Main delegates one Child, which takes TURNS
 * turns; on each but the last it writes a few paragraphs of notes (a drawn
 * 0.5-2 KB of text) and reads a document whose text is a drawn 2-8 KB, so its
 * conversation grows to about 260k tokens; then it hands off and Main answers.
 * Texts are seeded pseudo-random words: the same bytes every run, and no
 * easier for PostgreSQL's compression than prose.
 */
export const TURNS = 100;
export const READ_TOOL = "read_document";

/** Words drawn from a seeded stream: `bytes` characters of text. */
export function seededText(seed: number, bytes: number): string {
  const rng = xoroshiro128plus(seed);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let out = "";
  while (out.length < bytes) {
    const length = 2 + Math.floor(uniformFloat64(rng) * 9);
    for (let i = 0; i < length; i++) out += letters[Math.floor(uniformFloat64(rng) * 26)];
    out += uniformFloat64(rng) < 0.08 ? ". " : " ";
  }
  return out.slice(0, bytes);
}

/** A drawn size in [min, max) bytes for `key` under `seed`. */
const sizeOf = (seed: number, key: number, min: number, max: number) => min + Math.floor(uniformFloat64(xoroshiro128plus(seed * 7919 + key)) * (max - min));

/** A read-only tool returning a document of 2-8 KB, the same for the same key and seed; `onOutput` is told each output. */
export function readDocument(seed: number, onOutput: (output: string) => void = () => {}) {
  return defineTool({
    name: READ_TOOL,
    description: "Reads one document of the bench corpus by number (benchmark tool).",
    input: z.object({ n: z.number().int().nonnegative() }),
    effect: "read_only",
    run: ({ n }) => {
      const output = seededText(seed + n, sizeOf(seed, n, 2048, 8192));
      onOutput(output);
      return output;
    },
  });
}

/** The model's replies: Main delegates once and answers; the Child notes and reads until its last turn. */
export function longcontextPolicy(seed: number, onRequest: (request: ModelRequest) => void): ScriptPolicy {
  return (request) => {
    onRequest(request);
    return isMain(request) ? mainReply(request) : childReply(request, seed);
  };
}

function mainReply(request: ModelRequest): ScriptedReply {
  const handoff = resultsOf(request, "delegate")[0];
  if (!handoff) {
    return {
      content: [
        {
          type: "tool_use",
          name: "delegate",
          input: {
            question: `${executorKey(request)} / read the corpus, one document a turn.`,
            context: "Benchmark task: read a document each turn and note what it says, then hand off.",
            done_when: `${TURNS - 1} documents read.`,
            profile: "general",
            tools: [READ_TOOL],
          },
        },
      ],
    };
  }
  const { child_executor_id: child } = JSON.parse(handoff.output) as { child_executor_id: string };
  return {
    content: [
      {
        type: "tool_use",
        name: "answer",
        input: {
          summary: "(scripted) The Child read the corpus.",
          sections: [
            {
              heading: "Reading",
              claims: [
                { text: `Child ${child} read the documents.`, basis: "observed", citations: [{ executor: child, finding: 0 }] },
                { text: "That is enough for this benchmark.", basis: "judgment", citations: [] },
              ],
            },
          ],
        },
      },
    ],
  };
}

function childReply(request: ModelRequest, seed: number): ScriptedReply {
  const step = turnsTaken(request);
  if (step < TURNS - 1) {
    return {
      content: [
        { type: "text", text: seededText(seed * 31 + step, sizeOf(seed + 1, step, 512, 2048)) },
        { type: "tool_use", name: READ_TOOL, input: { n: step } },
      ],
    };
  }
  const reads = resultsOf(request, READ_TOOL);
  return {
    content: [
      {
        type: "tool_use",
        name: "handoff",
        input: {
          summary: `(scripted) Read ${reads.length} documents.`,
          findings: [{ claim: `All ${reads.length} documents were read.`, evidence: { toolResults: reads.map((r) => r.id), citations: [] }, confidence: "high" }],
          measurementBasis: { sources: [READ_TOOL], dates: [], units: [], scope: "benchmark corpus only" },
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
