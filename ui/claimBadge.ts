import { unsupportedNumbers } from "../checker/numbers.ts";
import type { ClaimChain } from "../projections/claimTypes.ts";

export type Badge = "supported" | "flagged" | "number_mismatch" | "source_changed" | "no_evidence" | "judgment";

export const BADGE_LABELS: Record<Badge, string> = {
  supported: "supported",
  flagged: "flagged",
  number_mismatch: "number mismatch",
  source_changed: "source changed",
  no_evidence: "no evidence",
  judgment: "judgment",
};

/** The kinds of flag the checker raises on a claim, one badge each ("flagged": a flag of no recorded kind). */
export const FLAG_BADGES = ["advice", "number", "page", "quote", "artifact", "source_changed", "flagged"] as const;
export type FlagBadge = (typeof FLAG_BADGES)[number];

export const FLAG_LABELS: Record<FlagBadge, string> = {
  advice: "advice",
  number: "number",
  page: "page",
  quote: "quote",
  artifact: "artifact",
  source_changed: "source changed",
  flagged: "flagged",
};

export interface ClaimBadge {
  badge: Badge;
  /** One line saying why, shown beside the badge. */
  why: string;
  /** The checker's flags on the claim, one badge per kind; absent when no check decided the badge. */
  flags?: readonly FlagBadge[];
}

/**
 * A claim's badge, from its provenance chain: a judgment is a judgment; a
 * claim with no quote or tool result behind it has no evidence; an observed
 * claim stating a number that neither its quotes nor the source texts they
 * were found in state is a number mismatch (`sourceTexts`: those texts, which
 * the caller reads from the blobs). `checked` is the checker's own verdict for
 * the claim (check_completed) and, when given, wins: this is the one place the
 * page decides a badge.
 */
export function claimBadge(claim: Pick<ClaimChain, "basis" | "text" | "findings">, sourceTexts: readonly string[] = [], checked?: ClaimBadge | null): ClaimBadge {
  if (checked) return checked;
  if (claim.basis === "judgment") return { badge: "judgment", why: "Main's judgment, not evidence observed in the run" };
  const quotes = claim.findings.flatMap((f) => f.quotes.map((q) => q.text));
  const calls = claim.findings.reduce((n, f) => n + f.toolCalls.length, 0);
  if (claim.basis === "not_collected" || (quotes.length === 0 && calls === 0)) return { badge: "no_evidence", why: "no quote or tool result stands behind it" };
  // Tool results without quotes (a computation) give no text to hold its numbers against here.
  if (quotes.length === 0) return { badge: "supported", why: `${calls} tool result${calls === 1 ? "" : "s"}, no quoted text (its numbers are the checker's to compare)` };
  // A quote's page is a number the claim may name ("on page 2").
  const pages = claim.findings.flatMap((f) => f.quotes.flatMap((q) => (q.page === null ? [] : [`page ${q.page}`])));
  const missing = unsupportedNumbers(claim.text, [...quotes, ...pages, ...sourceTexts]);
  if (missing.length > 0) return { badge: "number_mismatch", why: `not in its quotes or their sources: ${missing.map((n) => n.text).join(", ")}` };
  return { badge: "supported", why: `${quotes.length} quote${quotes.length === 1 ? "" : "s"} found in stored sources` };
}
