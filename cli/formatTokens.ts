import type { Usage } from "../models/types.ts";

/**
 * Token counts as the log has them. A scripted model's counts are estimates
 * (four characters a token, models/estimateUsage.ts), so they say so.
 */
export function formatTokens(usage: Usage, estimated: boolean): string {
  const counts = `${usage.inputTokens}+${usage.outputTokens} tokens`;
  return estimated ? `~${counts}, estimated` : counts;
}

/** Usage with its provenance, for JSON output. */
export const labelledUsage = (usage: Usage, estimated: boolean) => ({ ...usage, estimated });
