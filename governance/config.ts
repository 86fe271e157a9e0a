import { z } from "zod";
import { ValidationError, type IssueDetail, fromZodIssues } from "../core/errors.ts";

/**
 * Governance configuration, in one place: the caps a run may have at most, and
 * the defaults a run gets when it asks for nothing lower. The values follow the
 * seeds: 600k tokens per run, a cost cap with an alert at 80%, 25 tool calls
 * and 6 minutes per Child; an investigate-style Child 15 steps, 60k tokens, 90 s.
 */

const Count = z.number().int().positive();

/** Limits of one executor, from its admission. */
export const ExecutorCaps = z.object({
  /** Model turns (steps). */
  maxTurns: Count,
  maxToolCalls: Count,
  /** Input + output tokens settled by this executor. */
  maxTokens: Count,
  /** Wall clock from the executor's admission. */
  wallClockMs: Count,
});
export type ExecutorCaps = z.infer<typeof ExecutorCaps>;

export const Caps = z.object({
  run: z.object({
    /** Input + output tokens of every executor of the run together. */
    maxTokens: Count,
    /** Cost of every model call of the run, in millionths of a USD (price table in prices.ts). */
    maxCostMicros: Count,
    /** Wall clock from the run's start (its budget row). */
    wallClockMs: Count,
  }),
  main: ExecutorCaps,
  /** Any Child whose profile is not investigate-style. */
  child: ExecutorCaps,
  /** A Child with an investigate-style profile (INVESTIGATE_PROFILES). */
  investigate: ExecutorCaps,
  delegation: z.object({
    /** Depth of the deepest executor; Main is 0, its Children 1. */
    maxDepth: Count,
    /** Children one executor may admit. */
    maxFanOut: Count,
  }),
  /** The run's fetch budget: pages web_fetch reads from the network, and their bytes (absent in caps recorded before it: the defaults). */
  fetch: z
    .object({
      maxFetches: Count,
      maxBytes: Count,
    })
    .default({ maxFetches: 200, maxBytes: 200 * 1024 * 1024 }),
  /** The run's search budget: web searches Anthropic runs inside model calls (ARIADNE_SEARCH=anthropic), billed per search (absent in caps recorded before it: the default). */
  search: z.object({ maxSearches: Count }).default({ maxSearches: 50 }),
});
export type Caps = z.infer<typeof Caps>;

export type CapsRequest = { [K in keyof Caps]?: Partial<Caps[K]> };

/** The configured maximum, which is also what a run gets by default. */
export const CONFIGURED_CAPS: Caps = Object.freeze({
  run: { maxTokens: 600_000, maxCostMicros: 5_000_000, wallClockMs: 30 * 60_000 },
  main: { maxTurns: 40, maxToolCalls: 80, maxTokens: 600_000, wallClockMs: 30 * 60_000 },
  child: { maxTurns: 30, maxToolCalls: 25, maxTokens: 150_000, wallClockMs: 6 * 60_000 },
  investigate: { maxTurns: 15, maxToolCalls: 25, maxTokens: 60_000, wallClockMs: 90_000 },
  delegation: { maxDepth: 2, maxFanOut: 8 },
  fetch: { maxFetches: 200, maxBytes: 200 * 1024 * 1024 },
  search: { maxSearches: 50 },
}) as Caps;

/** Profiles whose Children explore and answer a question briefly: the investigate-style budget. */
export const INVESTIGATE_PROFILES: readonly string[] = ["general", "web-explorer", "document-reader", "reviewer"];

/** Fractions of a run budget (tokens, cost, wall clock) at which Remind raises a fact; the last is the alert. */
export const REMIND_THRESHOLDS: readonly number[] = [0.5, 0.8];

/**
 * The caps of a run: the configured maximum, lowered where the run asks.
 * A cap above the maximum, or one that is not a positive integer, is refused
 * with a ValidationError naming the field and the maximum; nothing is partial.
 */
export function resolveCaps(requested: CapsRequest = {}, maximum: Caps = CONFIGURED_CAPS): Caps {
  const issues: IssueDetail[] = [];
  const caps = structuredClone(maximum) as Caps;
  for (const [group, fields] of Object.entries(requested ?? {})) {
    if (fields === undefined) continue;
    const max = (maximum as Record<string, Record<string, number>>)[group];
    if (!max) {
      issues.push({ path: [group], message: `unknown cap group (known: ${Object.keys(maximum).join(", ")})` });
      continue;
    }
    for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (!(field in max)) {
        issues.push({ path: [group, field], message: `unknown cap (known: ${Object.keys(max).join(", ")})` });
      } else if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
        issues.push({ path: [group, field], message: `expected a positive integer, got ${JSON.stringify(value)}` });
      } else if (value > max[field]) {
        issues.push({ path: [group, field], message: `${value} is above the configured maximum ${max[field]}; a run may only lower its caps` });
      } else {
        (caps as unknown as Record<string, Record<string, number>>)[group][field] = value;
      }
    }
  }
  if (issues.length) throw new ValidationError("caps refused", issues);
  return parseCaps(caps);
}

/** Caps read back from storage or a file, checked. */
export function parseCaps(value: unknown): Caps {
  const parsed = Caps.safeParse(value);
  if (!parsed.success) throw new ValidationError("invalid caps", fromZodIssues(parsed.error.issues, ["caps"]));
  return parsed.data;
}

/** Which executor caps apply: Main's, an investigate-style Child's, or a Child's. */
export function executorCapsFor(
  executor: { role: string; profile: { id: string } | null },
  caps: Caps,
  investigateProfiles: readonly string[] = INVESTIGATE_PROFILES,
): { kind: "main" | "investigate" | "child"; caps: ExecutorCaps } {
  if (executor.role === "main") return { kind: "main", caps: caps.main };
  if (executor.profile && investigateProfiles.includes(executor.profile.id)) return { kind: "investigate", caps: caps.investigate };
  return { kind: "child", caps: caps.child };
}
