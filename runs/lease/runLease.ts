import { z } from "zod";

/** What a worker holds while it hosts a run: the run, and the epoch its appends are fenced with. */
export interface RunLease {
  runId: string;
  mainExecutorId: string;
  question: string;
  options: RunOptions;
  owner: string;
  epoch: number;
  /** True when the run had never been started (it was submitted, not abandoned). */
  fresh: boolean;
}

/** How a submitted run is to be hosted; stored as jsonb, parsed when read back. */
export const RunOptions = z
  .object({
    /** "offline": a scripted offline scenario; "model": the configured model; "baseline": the scripted baseline researcher (models/baseline/) on the question. */
    mode: z.enum(["offline", "model", "baseline"]).default("model"),
    /** The offline run's scenario (scenarios/index.ts); absent: the default one. */
    scenario: z.string().min(1).optional(),
    /** Free-form hints for a harness or a later API; carried, not interpreted here. */
    tags: z.record(z.string(), z.string()).default({}),
    /** The run's caps (governance/config.ts), already resolved against the configured maximum. */
    caps: z.record(z.string(), z.unknown()).optional(),
    /** Per-executor limits frozen at admission, per role. */
    limits: z.record(z.string(), z.record(z.string(), z.number())).optional(),
    reviewer: z.enum(["off", "shadow", "advisory"]).default("off"),
    /** The Specialty Profiles a delegation may name (RuntimeOptions.allowedProfiles); default every installed one. */
    allowedProfiles: z.array(z.string().min(1)).min(1).optional(),
    /** Model name per role, over the configured ones (ARIADNE_MODEL_*). */
    models: z.object({ main: z.string().min(1), child: z.string().min(1), reviewer: z.string().min(1) }).partial().strict().optional(),
    /** Background the submitter gave with the question (the HTTP API's `context`). */
    context: z.string().optional(),
    /** --model-idle-timeout of the command that submitted the run, in ms. */
    modelIdleTimeoutMs: z.number().int().positive().optional(),
    /** The submitter's string map (runs/runMetadata.ts), also on the run's row for filtering. */
    metadata: z.record(z.string(), z.string()).optional(),
    /** One executor with every tool but delegate, no Children (`--single-agent`): the control for isolation. */
    singleAgent: z.literal(true).optional(),
    /** The run's trace (telemetry/traceparent.ts): fixed at submission, so every host continues it. */
    trace: z
      .object({
        traceId: z.string().regex(/^[0-9a-f]{32}$/),
        parentSpanId: z.string().regex(/^[0-9a-f]{16}$/).optional(),
        sampled: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RunOptions = z.output<typeof RunOptions>;

export type RunRowState = "submitted" | "running" | "interrupted" | "finished";

export const RUNS_CHANNEL = "ariadne_runs";

