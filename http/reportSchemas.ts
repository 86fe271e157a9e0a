import { z } from "@hono/zod-openapi";
import type { RunReport } from "../projections/index.ts";

/** The zod schema of projections/runReportView.ts RunReport, for the OpenAPI document; the check at the end keeps the two in step. */

const Count = z.number().int();

const LimitLeft = z
  .object({ cap: Count.nullable(), used: z.number(), left: z.number().nullable() })
  .openapi("ReportLimit", { description: "A limit's cap (null when the log records none), what is used and what is left" });

const Fetches = z
  .object({
    calls: Count.openapi({ description: "Completed web_fetch calls" }),
    network: Count.openapi({ description: "Pages read over the network" }),
    cacheHits: Count.openapi({ description: "Calls answered from the run's page cache" }),
    duplicatesAvoided: Count.openapi({ description: "Cache hits for a normalized URL and offset already read in the run" }),
    refetched: Count.openapi({ description: "Network fetches of a normalized URL the run had already fetched" }),
    networkBytes: Count.openapi({ description: "Bytes read over the network (what the run's fetch budget counts)" }),
  })
  .openapi("ReportFetches");

const figures = {
  turns: Count,
  toolCalls: Count,
  tokens: z
    .object({ input: Count, output: Count, cacheRead: Count.nullable(), cacheWrite: Count.nullable(), estimated: z.boolean() })
    .openapi({ description: "Model tokens; cache counts null when no turn recorded them; estimated when a scripted model counted them" }),
  cost: z
    .object({ micros: Count, estimated: z.boolean() })
    .openapi({ description: "Priced per turn by the price table, in millionths of a USD; estimated when the tokens were" }),
  modelLatencyMs: z.number().openapi({ description: "Time waiting on the model, summed over turns" }),
  wallTimeMs: z.number().nullable().openapi({ description: "From the first to the last event" }),
  hostedTimeMs: z.number().nullable().openapi({ description: "Wall time less the time the run had no host" }),
  fetches: Fetches,
  webSearches: Count.openapi({ description: "Server-side web searches the model calls ran (ARIADNE_SEARCH=anthropic), billed per search and in the cost" }),
};

const Figures = z.object(figures).openapi("ReportFigures");

const ExecutorReport = z
  .object({
    executorId: z.string(),
    role: z.string().nullable(),
    parentExecutorId: z.string().nullable(),
    depth: Count,
    profile: z.string().nullable(),
    model: z.string().nullable(),
    peakInputTokens: Count.openapi({ description: "Its largest request's input tokens" }),
    ...figures,
    limits: z.object({ turns: LimitLeft, toolCalls: LimitLeft, tokens: LimitLeft, wallClockMs: LimitLeft, fanOut: LimitLeft }),
  })
  .openapi("ExecutorReport");

export const RunReportSchema = z
  .object({
    runId: z.string(),
    question: z.string().nullable(),
    mainExecutorId: z.string().nullable(),
    singleAgent: z.boolean().openapi({ description: "Made as a single agent (singleAgent / --single-agent): one executor, no Children" }),
    run: Figures,
    limits: z.object({ tokens: LimitLeft, costMicros: LimitLeft, wallClockMs: LimitLeft, depth: LimitLeft, fetches: LimitLeft, fetchBytes: LimitLeft, searches: LimitLeft }),
    isolation: z
      .object({ mainContextTokens: Count, childrenInputTokens: Count, children: Count, ratio: z.number().nullable() })
      .openapi({ description: "Main's context (its largest request's input tokens) against the sum of its Children's input tokens" }),
    executors: z.array(ExecutorReport).openapi({ description: "Main first, then in order of admission" }),
  })
  .openapi("RunReport");

// Compile-time: the projection's output is what this schema describes, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _report: Same<z.infer<typeof RunReportSchema>, RunReport> = true;
void _report;
