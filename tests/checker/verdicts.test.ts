import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CheckResult, checkAnswer, sourceKey } from "../../checker/checkAnswer.ts";
import { CHECK_EXIT } from "../../cli/checkCommand.ts";
import type { ClaimChain, RunClaims, SourceRef } from "../../projections/claimTypes.ts";
import { mergeVerdicts } from "../../runs/check/checkBeforeSeal.ts";

const SHA = (c: string) => c.repeat(64);
const ref = { eventId: "e", streamId: "s", streamVersion: 1, globalPosition: 1, hash: SHA("0") };
const page: SourceRef = { kind: "source", sourceKind: "web_page", url: "https://x.test/a", contentType: "text/plain", fetchedAt: "t", rawSha256: SHA("a"), textSha256: SHA("b"), bytes: 1 };
const TEXT = "The fund's ongoing charge is 0.29% a year.";
const texts = new Map([[SHA("b"), TEXT]]);

function claim(id: string, text: string, basis: ClaimChain["basis"], quoted = true): ClaimChain {
  const call = { toolUseId: "t1", tool: "web_fetch", input: {}, turn: 1, intent: ref, outcome: { ...ref, type: "tool_completed" }, sources: [page], artifacts: [] };
  const finding = { executorId: "child", finding: 0, claim: text, confidence: "high", child: { executorId: "child", role: "child", profile: null, admission: null }, handoff: null, turn: null,
    quotes: quoted ? [{ text: TEXT, page: null, blob: { sha256: SHA("b"), charStart: 0, charEnd: TEXT.length }, toolUseId: "t1", call, source: page }] : [], toolCalls: [call], citations: [], problems: [] };
  return { id, section: "S", sectionIndex: 0, claimIndex: 0, text, basis, noEvidence: basis === "observed" ? null : "none", findings: basis === "observed" ? [finding] : [] };
}
const run = (claims: ClaimChain[], partial = false): RunClaims => ({ runId: "r", answer: { ...ref, executorId: "main", partial }, claims });
const rereads = new Map([[sourceKey(page.url, page.rawSha256), { url: page.url, kind: "web_page", recordedRawSha256: page.rawSha256, state: "read" as const, currentRawSha256: page.rawSha256, currentText: TEXT, rereadAt: "t" }]]);
const check = (claims: ClaimChain[], partial = false): CheckResult => checkAnswer({ claims: run(claims, partial), summary: "", headings: [], texts, rereads });

describe("the run's check verdict: supported only when every observed claim is", () => {
  it("seven not-collected claims (a pc-measures run without the sandbox) are unsupported, not supported, and exit 3", () => {
    const r = check(Array.from({ length: 7 }, (_, i) => claim(`c${i + 1}`, `Variant ${i + 1}: not computed, the sandbox is missing.`, "not_collected")));
    assert.equal(r.verdict, "unsupported");
    assert.match(r.verdictReason ?? "", /no claim is observed/);
    assert.equal(CHECK_EXIT[r.verdict], 3);
  });

  it("a partial answer is unsupported even when its claims hold, so the closing line never reads PARTIAL ANSWER with check: supported", () => {
    const r = check([claim("c1", "The ongoing charge is 0.29%.", "observed")], true);
    assert.equal(r.claims[0].verdict, "supported");
    assert.equal(r.verdict, "unsupported");
    assert.match(r.verdictReason ?? "", /partial/);
  });

  it("an observed claim whose findings quote nothing makes the run unsupported; a judgment does not", () => {
    assert.equal(check([claim("c1", "The ongoing charge is 0.29%.", "observed"), claim("c2", "It suits long holders.", "judgment")]).verdict, "supported");
    assert.equal(check([claim("c1", "The ongoing charge is 0.29%.", "observed"), claim("c2", "The charge is low.", "observed", false)]).verdict, "unsupported");
  });

  it("any flag makes it flagged (exit 1), before unsupported", () => {
    const r = check([claim("c1", "The ongoing charge is 0.35%.", "observed"), claim("c2", "The charge is low.", "observed", false)]);
    assert.equal(r.verdict, "flagged");
    assert.equal(r.verdictReason, undefined);
    assert.deepEqual([CHECK_EXIT.supported, CHECK_EXIT.flagged], [0, 1]);
  });

  it("the Checker's own verdicts keep an unsupported verdict, and its flag turns it into flagged", () => {
    const tools = check([claim("c1", "The charge is low.", "observed", false)]);
    const checker = { executorId: "chk", model: "scripted:checker", state: "completed" as const };
    assert.equal(mergeVerdicts(tools, { verdicts: [], forced: false }, checker).verdict, "unsupported");
    const flagged = mergeVerdicts(tools, { verdicts: [{ claimId: "c1", verdict: "flagged", note: "vague" }], forced: false } as never, checker);
    assert.equal(flagged.verdict, "flagged");
    assert.equal(flagged.verdictReason, undefined);
  });
});
