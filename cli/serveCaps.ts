import type { Limits } from "../http/middleware/limits.ts";
import type { AriadneConfig, ServeCapVariable } from "./config.ts";
import { UsageError } from "./usage.ts";

/** `serve`'s per-key and per-tenant caps: the flag, else the variable, else the default (http/middleware/limits.ts). */
const CAPS: { flag: string; variable: ServeCapVariable; limit: keyof Pick<Limits, "streamsPerKey" | "streamsPerTenant" | "queuedRunsPerKey" | "queuedRunsPerTenant"> }[] = [
  { flag: "streams-per-key", variable: "ARIADNE_STREAMS_PER_KEY", limit: "streamsPerKey" },
  { flag: "streams-per-tenant", variable: "ARIADNE_STREAMS_PER_TENANT", limit: "streamsPerTenant" },
  { flag: "queued-per-key", variable: "ARIADNE_QUEUED_PER_KEY", limit: "queuedRunsPerKey" },
  { flag: "queued-per-tenant", variable: "ARIADNE_QUEUED_PER_TENANT", limit: "queuedRunsPerTenant" },
];

/** The flags `serve` takes for them (main.ts adds them to its options). */
export const SERVE_CAP_OPTIONS = Object.fromEntries(CAPS.map((c) => [c.flag, { type: "string" as const }])) as Record<string, { type: "string" }>;

export const SERVE_CAPS_USAGE = "[--streams-per-key N] [--streams-per-tenant N] [--queued-per-key N] [--queued-per-tenant N]";

/** The caps given; a value that is not a positive integer is a UsageError naming the flag or variable (exit 2). */
export function serveCaps(flags: Record<string, unknown>, config: Pick<AriadneConfig, "serveCaps">): Partial<Limits> {
  const limits: Partial<Limits> = {};
  for (const c of CAPS) {
    const fromFlag = flags[c.flag];
    const [name, raw] = typeof fromFlag === "string" ? [`--${c.flag}`, fromFlag] : [c.variable, config.serveCaps[c.variable]];
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer (got "${raw}")`);
    limits[c.limit] = n;
  }
  return limits;
}
