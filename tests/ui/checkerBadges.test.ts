import assert from "node:assert/strict";
import { test } from "node:test";
import type { RecordedEvent } from "../../events/types.ts";
import { checkerBadges } from "../../ui/checkerBadges.ts";

type ClaimVerdict = RecordedEvent<"check_completed">["data"]["claims"][number];

const verdict = (claimId: string, over: Partial<ClaimVerdict>): ClaimVerdict => ({
  claimId,
  basis: "observed",
  verdict: "supported",
  notes: [],
  numbers: [],
  unsupportedNumbers: [],
  sources: [],
  ...over,
});

// Only the fields checkerBadges reads: the event's type and its claims.
const check = (claims: ClaimVerdict[]) => ({ type: "check_completed", data: { claims } }) as unknown as RecordedEvent;

test("the checker's verdicts become the page's badges, the last check winning; no check, no badges", () => {
  assert.equal(checkerBadges([]), undefined);
  const badges = checkerBadges([
    check([verdict("c1", { verdict: "flagged", unsupportedNumbers: ["9"] })]),
    check([
      verdict("c1", {}),
      verdict("c2", { verdict: "flagged", unsupportedNumbers: ["212"], notes: ["212 is stated by no cited source"] }),
      verdict("c3", { verdict: "flagged", notes: ["https://x.test/ changed and no longer holds its quote"] }),
      verdict("c4", { verdict: "no_evidence", basis: "not_collected", notes: ["not collected"] }),
      verdict("c5", { basis: "judgment", verdict: "no_evidence" }),
    ]),
  ])!;
  assert.deepEqual(
    [...badges].map(([id, b]) => [id, b.badge]),
    [
      ["c1", "supported"],
      ["c2", "number_mismatch"],
      ["c3", "source_changed"],
      ["c4", "no_evidence"],
    ],
  );
  assert.match(badges.get("c2")!.why, /212 is stated by no cited source/);
  assert.equal(badges.has("c5"), false, "a judgment keeps the page's own badge");
});
