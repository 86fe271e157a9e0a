import assert from "node:assert/strict";
import { test } from "node:test";
import { validateHandoff } from "../../handoff/index.ts";
import { facts, FEE_MARKER, NOTE_MARKER, SHA, validCandidate } from "./fixtures.ts";

function rejected(candidate: unknown) {
  const verdict = validateHandoff(candidate, facts);
  if (verdict.ok) assert.fail("expected the handoff to be rejected");
  return verdict;
}

const NEVER_EMPTY = /empty|\[\]|no evidence at all/i;

test("a valid handoff passes unchanged", () => {
  const verdict = validateHandoff(validCandidate(), facts);
  assert.ok(verdict.ok);
  assert.deepEqual(verdict.handoff, validCandidate());
});

test("a citation marker in toolResults is named as misplaced, and the feedback keeps the valid references", () => {
  const c = validCandidate();
  c.findings[0]!.evidence.toolResults.push(NOTE_MARKER);
  const { issues, feedback } = rejected(c);

  assert.equal(issues.length, 1);
  assert.equal(issues[0]?.kind, "misplaced_reference");
  assert.deepEqual(issues[0]?.path, ["findings", 0, "evidence", "toolResults", 2]);
  assert.match(issues[0]?.message ?? "", /citation marker, not a tool-result id/);

  assert.match(feedback, /findings\[0\]\.evidence\.toolResults\[2\]/);
  assert.match(feedback, /Move it to findings\[0\]\.evidence\.citations/);
  assert.match(feedback, /two kinds of reference/);
  assert.match(feedback, /move it to the right field instead of deleting it/);
  assert.match(feedback, /Valid references to keep/);
  for (const ref of ["toolu_search", "toolu_quote", "toolu_read", FEE_MARKER, NOTE_MARKER, "art-overlap"]) {
    assert.ok(feedback.includes(`"${ref}"`), `feedback lists ${ref} as valid`);
  }
  assert.doesNotMatch(feedback, NEVER_EMPTY);
});

test("a tool_use id in citations is misplaced the other way", () => {
  const c = validCandidate();
  c.findings[1]!.evidence.citations.push("toolu_search");
  const { issues, salvage } = rejected(c);
  assert.equal(issues[0]?.kind, "misplaced_reference");
  assert.match(issues[0]?.message ?? "", /tool_use id, not a citation marker\. Move it to findings\[1\]\.evidence\.toolResults/);
  assert.deepEqual(salvage.findings[1]?.evidence, { toolResults: ["toolu_read", "toolu_search"], citations: [NOTE_MARKER] });
});

test("an unknown tool id is named, and the recorded ids are offered", () => {
  const c = validCandidate();
  c.findings[0]!.evidence.toolResults = ["toolu_search", "toolu_invented"];
  const { issues, feedback, salvage } = rejected(c);
  assert.equal(issues[0]?.kind, "unknown_tool_result");
  assert.equal(issues[0]?.ref, "toolu_invented");
  assert.match(feedback, /"toolu_invented" is not the id of a successful tool call/);
  assert.match(feedback, /usable in toolResults: toolu_search, toolu_read, toolu_quote/);
  assert.deepEqual(salvage.findings[0]?.evidence.toolResults, ["toolu_search"]);
  assert.ok(salvage.caveats.some((c) => c.includes('"toolu_invented" dropped') && c.includes("no successful tool call")));
  assert.doesNotMatch(feedback, NEVER_EMPTY);
});

test("a citation marker that never appeared in a tool output is refused", () => {
  const c = validCandidate();
  c.findings[0]!.evidence.citations.push("[[corpus:adiv-prospectus#p99]]");
  const { issues } = rejected(c);
  assert.equal(issues[0]?.kind, "unseen_citation");
  assert.match(issues[0]?.message ?? "", /did not appear in any of your tool outputs/);
});

test("a fabricated artifact is refused and left out of the salvage", () => {
  const c = validCandidate();
  c.artifacts.push({ id: "report.pdf", path: "out/report.pdf", sha256: SHA });
  const { issues, feedback, salvage } = rejected(c);
  assert.equal(issues[0]?.kind, "unproduced_artifact");
  assert.deepEqual(issues[0]?.path, ["artifacts", 1]);
  assert.match(feedback, /artifact "report\.pdf" was not produced/);
  assert.deepEqual(salvage.artifacts.map((a) => a.id), ["art-overlap"]);
  assert.ok(salvage.caveats.some((c) => c.includes('artifact "report.pdf" dropped')));
});

test("a real artifact with a wrong hash is named and salvaged with the recorded values", () => {
  const c = validCandidate();
  c.artifacts[0]!.sha256 = "0000";
  const { issues, salvage } = rejected(c);
  assert.equal(issues[0]?.kind, "artifact_mismatch");
  assert.match(issues[0]?.message ?? "", new RegExp(SHA));
  assert.deepEqual(salvage.artifacts, [{ id: "art-overlap", path: "work/child-1/overlap.csv", sha256: SHA }]);
});

test("schema problems carry zod paths, and reference problems are reported in the same round", () => {
  const c = { ...validCandidate(), summary: "x".repeat(1300), executionState: "done" };
  c.findings[0]!.evidence.toolResults.push(FEE_MARKER);
  const { issues, salvage } = rejected(c);
  const paths = issues.map((i) => i.path.join("."));
  assert.ok(paths.includes("summary"));
  assert.ok(paths.includes("executionState"));
  assert.ok(paths.includes("findings.0.evidence.toolResults.2"));
  assert.equal(salvage.summary.length, 1200);
  assert.equal(salvage.executionState, "partial");
});

test("salvage keeps valid findings and evidence, moves misplaced refs and explains every drop", () => {
  const c = validCandidate();
  c.findings[0]!.evidence.toolResults = ["toolu_search", FEE_MARKER, "made-up"];
  c.findings[0]!.evidence.citations = [];
  c.findings[1]!.evidence = { toolResults: ["toolu_nope"], citations: ["page 13"] };
  const { salvage } = rejected(c);

  assert.equal(salvage.findings.length, 2);
  assert.deepEqual(salvage.findings[0]?.evidence, { toolResults: ["toolu_search"], citations: [FEE_MARKER] });
  assert.equal(salvage.findings[0]?.confidence, "high");
  assert.deepEqual(salvage.findings[1]?.evidence, { toolResults: [], citations: [] });
  assert.equal(salvage.findings[1]?.confidence, "low", "a claim that lost all its evidence is kept at low confidence");
  assert.equal(salvage.executionState, "partial");
  assert.equal(salvage.gaps[0], "Broker commissions and spreads were not quantified.");
  for (const dropped of ['"made-up" dropped', '"toolu_nope" dropped', '"page 13" dropped', `"${FEE_MARKER}" moved`]) {
    assert.ok(salvage.caveats.some((x) => x.includes(dropped)), `caveat for ${dropped}`);
  }
  assert.ok(validateHandoff(salvage, facts).ok, "the salvage itself validates");
});

test("garbage still yields a valid salvage", () => {
  for (const junk of [null, 42, "done", [], { findings: "lots" }]) {
    const { salvage } = rejected(junk);
    assert.ok(validateHandoff(salvage, facts).ok);
    assert.deepEqual(salvage.findings, []);
  }
});

test("a finding resting only on web_search results is refused: search is discovery, never evidence", () => {
  const searched = { ...facts, discoveryOnly: new Set(["toolu_search"]) };
  // Beside a fetched page's call it stands.
  assert.ok(validateHandoff(validCandidate(), searched).ok);
  const c = validCandidate();
  c.findings[0]!.evidence.toolResults = ["toolu_search"];
  const verdict = validateHandoff(c, searched);
  if (verdict.ok) assert.fail("a snippet-only finding must be refused");
  assert.deepEqual(verdict.issues.map((i) => [i.kind, i.path]), [["discovery_only", ["findings", 0, "evidence", "toolResults"]]]);
  assert.match(verdict.issues[0]!.message, /discovery, never evidence\. Fetch the page with web_fetch/);
});

test("a finding citing a search Anthropic ran server-side is refused as discovery, not as an unknown id", () => {
  const c = validCandidate();
  c.findings[0]!.evidence.toolResults = [...c.findings[0]!.evidence.toolResults, "srvtoolu_1"];
  const verdict = validateHandoff(c, { ...facts, serverSearches: new Set(["srvtoolu_1"]) });
  if (verdict.ok) assert.fail("a server search is never evidence");
  assert.deepEqual(verdict.issues.map((i) => [i.kind, i.ref]), [["discovery_only", "srvtoolu_1"]]);
  assert.match(verdict.issues[0]!.message, /^"srvtoolu_1" is a web search Anthropic ran for you: its results are discovery, never evidence\. Fetch the page with web_fetch/);
});
