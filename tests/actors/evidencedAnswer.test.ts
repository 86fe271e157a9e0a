import { test } from "node:test";
import assert from "node:assert/strict";
import { validateEvidencedAnswer } from "../../actors/request/evidencedAnswer.ts";
import type { HandoffFacts } from "../../handoff/index.ts";

const SELF = "agent-1";
const facts: HandoffFacts = { toolResultIds: new Set(["toolu_1"]), artifacts: new Map(), citationsSeen: new Set(), quotable: new Map(), blobTexts: new Map() };
const evidence = (toolResults: string[]) => ({
  summary: "what the agent found",
  findings: [{ claim: "The ongoing charge is 0.29%.", evidence: { toolResults, citations: [] }, confidence: "high" }],
  measurementBasis: { sources: ["https://x.test/"], dates: [], units: ["%"], scope: "one share class" },
  artifacts: [],
  gaps: [],
  executionState: "completed",
  confidence: "high",
  caveats: [],
});
const answer = (citations: { executor: string; finding: number }[], toolResults = ["toolu_1"]) => ({
  summary: "s",
  sections: [{ heading: "Fees", claims: [{ text: "The ongoing charge is 0.29%.", basis: "observed", citations }] }],
  evidence: evidence(toolResults),
});

test("a single agent's answer is accepted when its observed claims cite its own findings, which cite its own tool results", () => {
  const verdict = validateEvidencedAnswer(answer([{ executor: SELF, finding: 0 }]), SELF, facts);
  assert.equal(verdict.ok, true);
  if (verdict.ok) {
    assert.deepEqual(Object.keys(verdict.answer), ["summary", "sections"], "the evidence is not part of the answer: it is committed as the agent's handoff");
    assert.equal(verdict.evidence.findings.length, 1);
  }
});

test("evidence citing a tool result the agent never had is refused, saying what to fix", () => {
  const verdict = validateEvidencedAnswer(answer([{ executor: SELF, finding: 0 }], ["toolu_404"]), SELF, facts);
  assert.equal(verdict.ok, false);
  if (!verdict.ok) assert.match(verdict.feedback, /^Keep the summary and sections as they are; fix the evidence: .*toolu_404/s);
});

test("an observed claim citing nothing, another executor, or a finding the evidence lacks is refused", () => {
  for (const [citations, problem] of [
    [[], /is observed but cites nothing/],
    [[{ executor: "child-9", finding: 0 }], /cites executor child-9, whose handoff you have not received/],
    [[{ executor: SELF, finding: 3 }], /cites finding 3 of agent-1, which has 1 findings/],
  ] as const) {
    const verdict = validateEvidencedAnswer(answer([...citations]), SELF, facts);
    assert.equal(verdict.ok, false);
    if (!verdict.ok) assert.match(verdict.feedback, problem);
  }
});

test("an answer without evidence is refused", () => {
  const { evidence: _none, ...bare } = answer([{ executor: SELF, finding: 0 }]);
  assert.equal(validateEvidencedAnswer(bare, SELF, facts).ok, false);
});
