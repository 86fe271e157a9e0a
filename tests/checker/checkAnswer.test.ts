import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Reread, checkAnswer, sourceKey } from "../../checker/checkAnswer.ts";
import type { ClaimChain, RunClaims, SourceRef } from "../../projections/claimTypes.ts";

const SHA = (c: string) => c.repeat(64);
const ref = { eventId: "e", streamId: "s", streamVersion: 1, globalPosition: 1, hash: SHA("0") };
const page: SourceRef = { kind: "source", sourceKind: "web_page", url: "https://x.test/a", contentType: "text/html", fetchedAt: "t", rawSha256: SHA("a"), textSha256: SHA("b"), bytes: 1 };
const TEXT = "Fees fell to 0.29% on page 3. Holdings: 1,200.";

function claim(id: string, text: string, basis: ClaimChain["basis"], quotes: { text: string; page?: number }[] = []): ClaimChain {
  const call = { toolUseId: "t1", tool: "web_fetch", input: {}, turn: 1, intent: ref, outcome: { ...ref, type: "tool_completed" }, sources: [page], artifacts: [] };
  return {
    id, section: "S", sectionIndex: 0, claimIndex: 0, text, basis, noEvidence: basis === "observed" ? null : "none",
    findings: basis === "observed"
      ? [{ executorId: "child", finding: 0, claim: text, confidence: "high", child: { executorId: "child", role: "child", profile: null, admission: null }, handoff: null, turn: null,
          quotes: quotes.map((q) => ({ text: q.text, page: q.page ?? null, blob: { sha256: SHA("b"), charStart: 0, charEnd: 1 }, toolUseId: "t1", call, source: page })),
          toolCalls: [call], citations: [], problems: [] }]
      : [],
  };
}

const run = (claims: ClaimChain[]): RunClaims => ({ runId: "r", answer: { ...ref, executorId: "main", partial: false }, claims });
const reread = (state: Reread["state"], raw: string | null, text: string | null): Map<string, Reread> =>
  new Map([[sourceKey(page.url, page.rawSha256), { url: page.url, kind: "web_page", recordedRawSha256: page.rawSha256, state, currentRawSha256: raw, currentText: text, rereadAt: "t" }]]);
const texts = new Map([[SHA("b"), TEXT]]);

describe("checkAnswer: verdicts from the claim chains, stored texts and sources read again", () => {
  it("1.2k in a claim is the source's 1,200; a page its quote is on is fine; a page none is on is flagged", () => {
    const r = checkAnswer({ claims: run([claim("c1", "Holdings: 1.2k; fees 0.29% (page 3).", "observed", [{ text: "0.29%", page: 3 }]), claim("c2", "Fees fell, page 7.", "observed", [{ text: "Fees fell", page: 3 }])]), summary: "Fees 0.29%.", headings: [], texts, rereads: reread("read", page.rawSha256, TEXT) });
    assert.deepEqual(r.claims.map((c) => [c.verdict, c.unsupportedNumbers]), [["supported", []], ["flagged", ["page 7"]]]);
  });

  it("a source that could not be read again flags the claims citing it", () => {
    const r = checkAnswer({ claims: run([claim("c1", "Fees fell to 0.29%.", "observed", [{ text: "0.29%" }])]), summary: "", headings: [], texts, rereads: reread("unreachable", null, null) });
    assert.equal(r.verdict, "flagged");
    assert.match(r.claims[0].notes.join(), /could not be read again/);
  });

  it("a summary number stated by no source and no checked claim is flagged; a judgment's own numbers are not checked", () => {
    const r = checkAnswer({ claims: run([claim("c1", "Fees fell to 0.29%.", "observed", [{ text: "0.29%" }]), claim("c2", "The fee matters most over 10 years.", "judgment")]), summary: "Fees are 0.29%, not 0.35%.", headings: ["Fees in 2026"], texts, rereads: reread("read", page.rawSha256, TEXT) });
    assert.deepEqual(r.summary.unsupportedNumbers, ["0.35%", "2026"]);
    assert.equal(r.claims[1].verdict, "no_evidence");
    assert.match(r.claims[1].notes.join(), /not checked: it cites no source/);
    assert.equal(r.verdict, "flagged");
  });

  it("an observed claim whose findings quote nothing is marked, not flagged, and the run is unsupported, not supported", () => {
    const r = checkAnswer({ claims: run([claim("c1", "Holdings: 1,200.", "observed")]), summary: "", headings: [], texts, rereads: reread("read", page.rawSha256, TEXT) });
    assert.deepEqual([r.verdict, r.claims[0].verdict], ["unsupported", "no_evidence"]);
    assert.match(r.verdictReason ?? "", /observed claim c1 without evidence/);
  });
});

describe("checkAnswer: a quoted source sentence is the source speaking, not advice", () => {
  const SAID = 'He closed the $3 billion deal to buy Oculus VR. We advise the public not to take any tablets sold as diet pills.';
  const saidTexts = new Map([[SHA("b"), SAID]]);
  const check = (text: string, summary = "") =>
    checkAnswer({ claims: run([claim("c1", text, "observed", [{ text: "He closed the $3 billion deal" }])]), summary, headings: [], texts: saidTexts, rereads: reread("read", page.rawSha256, SAID) });

  it("advice inside quotes the cited source holds verbatim is not Main's advice (claim and summary)", () => {
    const r = check('"He closed the $3 billion deal to buy Oculus VR." The agency wrote: "We advise the public not to take any tablets sold as diet pills."', '"He closed the $3 billion deal to buy Oculus VR."');
    assert.deepEqual(r.advice, []);
    assert.deepEqual(r.claims[0].flags ?? [], []);
    assert.equal(r.verdict, "supported");
  });

  it("Main's own advice beside such a quote is still flagged, and so is advice inside a quote no source holds", () => {
    const own = check('The agency wrote: "We advise the public not to take any tablets sold as diet pills." You should buy ADIV instead.');
    assert.deepEqual(own.advice.map((a) => a.rule), ["should act"]);
    assert.equal(own.claims[0].flags?.[0]?.kind, "advice");
    const after = check('"We advise the public not to take any tablets sold as diet pills." Buy ADIV instead.');
    assert.deepEqual(after.advice.map((a) => [a.rule, a.sentence]), [["imperative", "Buy ADIV instead."]]);
    const made = check('The agency wrote: "We recommend buying ADIV now."');
    assert.ok(made.advice.some((a) => a.rule === "recommends"), JSON.stringify(made.advice));
    assert.deepEqual((made.claims[0].flags ?? []).map((f) => f.kind).sort(), ["advice", "quote"]);
  });
});

describe("checkAnswer: a figure is looked for among derivations only when the claim words it as computed", () => {
  const FEES = "Management fee 0.35%. Portfolio transaction costs 0.06%.";
  const check = (more: string) => {
    const c = claim("c1", `The factsheet lists a management fee of 0.35% and transaction costs of 0.06%.${more}`, "observed", [{ text: "Management fee 0.35%" }, { text: "Portfolio transaction costs 0.06%" }]);
    return checkAnswer({ claims: run([c]), summary: "", headings: [], texts: new Map([[SHA("b"), FEES]]), rereads: reread("read", page.rawSha256, FEES) }).claims[0]!;
  };

  it("worded as computed (a total of, 0.29% lower, the gap is): derived, with its formula", () => {
    for (const more of [" Together that is a total of 0.41%.", " The costs are 0.29% lower than the fee.", " The gap is 0.29%."]) {
      const r = check(more);
      assert.equal(r.verdict, "supported", `${more}: ${r.notes.join("; ")}`);
      assert.equal(r.derived?.length, 1, more);
    }
  });

  it("a plain level beside a word of change elsewhere in the sentence is not derived: flagged", () => {
    for (const more of [" The total expense ratio, higher than most, is 0.41%.", " The day before, costs were down at 0.29%."]) {
      const r = check(more);
      assert.equal(r.verdict, "flagged", `${more}: ${r.notes.join("; ")}`);
      assert.deepEqual(r.derived ?? [], [], more);
    }
  });
});
