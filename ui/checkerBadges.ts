import type { RecordedEvent } from "../events/types.ts";
import { type ClaimBadge, type FlagBadge, FLAG_BADGES } from "./claimBadge.ts";

type ClaimCheck = RecordedEvent<"check_completed">["data"]["claims"][number];

/** The kinds of a claim's flags, in badge order. */
export function flagKinds(c: ClaimCheck): FlagBadge[] {
  const kinds: string[] = (c.flags ?? []).map((f) => f.kind);
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
  if (!withKinds(check)) return legacyBadges(check);
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

/**
 * Whether a check was recorded by the checker that gives flags their kinds: such checks always carry
 * `artifacts` (empty when none was published); one recorded before does not.
 */
export const withKinds = (check: RecordedEvent<"check_completed">): boolean => check.data.artifacts !== undefined;

/**
 * A frozen copy of the badges as they were given before flags had kinds, for a check recorded then: a
 * judgment kept the page's own badge, a number not found was a number mismatch, any other flag "source
 * changed". Its run's audit.html, derived again from the same events, stays byte for byte what it was.
 */
function legacyBadges(check: RecordedEvent<"check_completed">): Map<string, ClaimBadge> {
  const badges = new Map<string, ClaimBadge>();
  for (const c of check.data.claims) {
    const why = `checker: ${c.notes.join("; ") || "every number found in its cited sources, which are unchanged"}`;
    if (c.basis === "judgment") continue;
    if (c.verdict === "no_evidence") badges.set(c.claimId, { badge: "no_evidence", why });
    else if (c.unsupportedNumbers.length > 0) badges.set(c.claimId, { badge: "number_mismatch", why });
    else if (c.verdict === "flagged") badges.set(c.claimId, { badge: "source_changed", why });
    else badges.set(c.claimId, { badge: "supported", why });
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
  // A check recorded before flags had kinds is not shown in the banner (its page stays as it was derived).
  if (!check || !withKinds(check)) return null;
  const d = check.data;
  return {
    verdict: d.verdict,
    reason: d.verdictReason ?? (d.verdict === "incomplete" ? (d.checker?.reason ?? "the Checker did not finish") : null),
    flagged: d.claims.filter((c) => c.verdict === "flagged").length,
    claims: d.claims.length,
    eventId: check.eventId,
  };
}
