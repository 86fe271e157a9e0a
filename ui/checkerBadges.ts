import type { RecordedEvent } from "../events/types.ts";
import type { ClaimBadge } from "./claimBadge.ts";

/**
 * The badges the checker gave (the run's last check_completed), by claim id;
 * undefined when no check ran or it is incomplete, and the page decides from the chains alone. A
 * judgment keeps its own badge; a claim flagged for something other than a
 * number (a source that changed or cannot be read) is `source_changed`.
 */
export function checkerBadges(events: readonly RecordedEvent[]): Map<string, ClaimBadge> | undefined {
  const check = events.findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed");
  // No check, or one the Checker did not finish (no verdicts): the page decides from the chains.
  if (!check || check.data.verdict === "incomplete") return undefined;
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
