import type { RecordedEvent } from "../events/types.ts";
import { type ClaimBadge, type FlagBadge, FLAG_BADGES } from "./claimBadge.ts";

type ClaimCheck = RecordedEvent<"check_completed">["data"]["claims"][number];

/**
 * The kinds of a claim's flags: as recorded (`flags`), or, for a check recorded before kinds were kept, read
 * from what it recorded (a number or page not found, advice, a source that changed).
 */
export function flagKinds(c: ClaimCheck): FlagBadge[] {
  const kinds: string[] = c.flags?.map((f) => f.kind) ?? [
    ...(c.unsupportedNumbers.some((n) => !n.startsWith("page ")) ? (["number"] as const) : []),
    ...(c.unsupportedNumbers.some((n) => n.startsWith("page ")) ? (["page"] as const) : []),
    ...(c.notes.some((n) => n.startsWith("advice")) ? (["advice"] as const) : []),
    ...(c.notes.some((n) => /^source .*(?:no longer supports|could not be read again)/.test(n)) ? (["source_changed"] as const) : []),
  ];
  return FLAG_BADGES.filter((k) => kinds.includes(k));
}

/**
 * The badges the checker gave (the run's last check_completed), by claim id;
 * undefined when no check ran or it is incomplete, and the page decides from the chains alone. Every
 * claim, judgments included, gets the checker's verdict and one badge per kind of flag it raised (advice,
 * number, page, quote, artifact, source changed).
 */
export function checkerBadges(events: readonly RecordedEvent[]): Map<string, ClaimBadge> | undefined {
  const check = events.findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  // No check, or one the Checker did not finish (no verdicts): the page decides from the chains.
  if (!check || check.data.verdict === "incomplete") return undefined;
  const badges = new Map<string, ClaimBadge>();
  for (const c of check.data.claims) {
    const why = `checker: ${c.notes.join("; ") || "every number found beside its subject in its cited sources, which are unchanged"}`;
    const flags = flagKinds(c);
    if (c.verdict === "flagged") badges.set(c.claimId, { badge: "flagged", why, flags: flags.length ? flags : ["flagged"] });
    else if (c.basis === "judgment") badges.set(c.claimId, { badge: "judgment", why, flags });
    else if (c.verdict === "no_evidence") badges.set(c.claimId, { badge: "no_evidence", why, flags });
    else badges.set(c.claimId, { badge: "supported", why, flags });
  }
  return badges;
}

/** The run's check as the banner shows it: the last check_completed's verdict, why, and how many claims it flagged. */
export interface CheckSummary {
  verdict: RecordedEvent<"check_completed">["data"]["verdict"];
  reason: string | null;
  flagged: number;
  claims: number;
  eventId: string;
}

export function checkSummary(events: readonly RecordedEvent[]): CheckSummary | null {
  const check = events.findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  if (!check) return null;
  const d = check.data;
  return {
    verdict: d.verdict,
    reason: d.verdictReason ?? (d.verdict === "incomplete" ? (d.checker?.reason ?? "the Checker did not finish") : null),
    flagged: d.claims.filter((c) => c.verdict === "flagged").length,
    claims: d.claims.length,
    eventId: check.eventId,
  };
}
