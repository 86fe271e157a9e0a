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

// Only the fields checkerBadges reads: the event's type, its claims, and its artifacts, which today's
// checker always records (a check without them was recorded before flags had kinds: legacy badges).
const check = (claims: ClaimVerdict[]) => ({ type: "check_completed", data: { claims, artifacts: [] } }) as unknown as RecordedEvent;

test("the checker's verdicts become the page's badges, the last check winning; no check, no badges", () => {
  assert.equal(checkerBadges([]), undefined);
  const badges = checkerBadges([
    check([verdict("c1", { verdict: "flagged", unsupportedNumbers: ["9"] })]),
    check([
      verdict("c1", {}),
      verdict("c2", { verdict: "flagged", unsupportedNumbers: ["212"], notes: ["212 is stated by no cited source"], flags: [{ kind: "number", detail: "212 is stated by no cited source" }] }),
      verdict("c3", { verdict: "flagged", notes: ["source https://x.test/ no longer supports it: changed"], flags: [{ kind: "source_changed", detail: "source https://x.test/ no longer supports it: changed" }] }),
      verdict("c4", { verdict: "no_evidence", basis: "not_collected", notes: ["not collected"] }),
      verdict("c5", { basis: "judgment", verdict: "no_evidence" }),
    ]),
  ])!;
  assert.deepEqual(
    [...badges].map(([id, b]) => [id, b.badge, b.flags]),
    [
      ["c1", "supported", []],
      ["c2", "flagged", ["number"]],
      ["c3", "flagged", ["source_changed"]],
      ["c4", "no_evidence", []],
      ["c5", "judgment", []],
    ],
  );
  assert.match(badges.get("c2")!.why, /212 is stated by no cited source/);
  // A check recorded before flags had kinds (no artifacts) keeps the badges it was derived with.
  const before = { type: "check_completed", data: { claims: [verdict("c2", { verdict: "flagged", unsupportedNumbers: ["212"] }), verdict("c3", { verdict: "flagged" })] } } as unknown as RecordedEvent;
  assert.deepEqual([...checkerBadges([before])!].map(([id, b]) => [id, b.badge]), [["c2", "number_mismatch"], ["c3", "source_changed"]]);
});

test("an advice flag is an advice badge, not 'source changed', and a judgment carries the checker's badges too", () => {
  const badges = checkerBadges([
    check([
      verdict("c1", { basis: "judgment", verdict: "flagged", notes: ['advice (should act): "You should buy ADIV now."'], flags: [{ kind: "advice", detail: 'advice (should act): "You should buy ADIV now."' }] }),
      verdict("c2", {
        verdict: "flagged",
        unsupportedNumbers: ["0.40%", "page 3"],
        flags: [
          { kind: "quote", detail: 'quote "The charge is 0.40%": in no blob it cites' },
          { kind: "number", detail: "0.40%: in no cited source text or artifact" },
          { kind: "page", detail: "page 3: no quote it rests on is on that page" },
          { kind: "artifact", detail: "artifact pc_measures.csv: row 1, se_value" },
        ],
      }),
    ]),
  ])!;
  assert.deepEqual(badges.get("c1"), { badge: "flagged", why: 'checker: advice (should act): "You should buy ADIV now."', flags: ["advice"] });
  assert.deepEqual(badges.get("c2")!.flags, ["number", "page", "quote", "artifact"]);
});
