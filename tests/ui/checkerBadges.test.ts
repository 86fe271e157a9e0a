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

// Only the fields checkerBadges reads: the event's type, its claims, and artifacts (present on every check since flags have kinds).
const check = (claims: ClaimVerdict[]) => ({ type: "check_completed", data: { claims, artifacts: [] } }) as unknown as RecordedEvent;
const legacyCheck = (claims: ClaimVerdict[]) => ({ type: "check_completed", data: { claims } }) as unknown as RecordedEvent;

test("the checker's verdicts become the page's badges, the last check winning; no check, no badges", () => {
  assert.equal(checkerBadges([]), undefined);
  const badges = checkerBadges([
    check([verdict("c1", { verdict: "flagged", unsupportedNumbers: ["9"] })]),
    check([
      verdict("c1", {}),
      verdict("c2", { verdict: "flagged", unsupportedNumbers: ["212"], notes: ["212 is stated by no cited source"], flags: [{ kind: "number", detail: "212 is stated by no cited source" }] }),
      verdict("c3", { verdict: "flagged", notes: ["source https://x.test/ no longer supports it: changed"], flags: [{ kind: "source_changed", detail: "source https://x.test/ no longer supports it" }] }),
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

test("a check recorded before flags had kinds keeps the badges of its time, so its page derives as it did", () => {
  const badges = checkerBadges([
    legacyCheck([
      verdict("c1", { verdict: "flagged", unsupportedNumbers: ["212"] }),
      verdict("c2", { verdict: "flagged", notes: ['advice (should act): "You should buy"'] }),
      verdict("c3", { basis: "judgment", verdict: "flagged" }),
    ]),
  ])!;
  assert.deepEqual(
    [...badges].map(([id, b]) => [id, b.badge, b.flags]),
    [
      ["c1", "number_mismatch", undefined],
      ["c2", "source_changed", undefined],
    ],
  );
});
