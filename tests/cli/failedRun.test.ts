import { after, before, describe as describeEverywhere, test } from "node:test";
import assert from "node:assert/strict";
import {
  type AnthropicWireServer,
  type WireBehaviour,
  type WireRequestBody,
  httpError,
  reply,
  startAnthropicWireServer,
  systemTextOf,
} from "../../models/testing/index.ts";
import { type CliResult, type CliStore, ariadne, cliStore } from "./ariadneProcess.ts";
import { dealt } from "../support/testShare.ts";

/** One recorded run read three ways: on one Node line of `npm test`, the first (tests/support/testShare.ts). */
const describe = dealt(describeEverywhere);

type Block = { type: string; id?: string; content?: string };
type Message = { role: string; content: string | Block[] };
const messagesOf = (body: WireRequestBody) => body.messages as Message[];
const blocks = (m: Message | undefined) => (m && Array.isArray(m.content) ? m.content : []);
const systemOf = (body: WireRequestBody) => systemTextOf(body);

const GAP = "The factsheet's one-time charges were not read.";
const PAGE = "https://pages.corpus.test/wikipedia/";
const BASIS = { sources: ["adiv-fee-announcement"], dates: ["2026-10-01"], units: ["% per year"], scope: "USD Distributing share class only" };

/**
 * Over the wire: Main delegates one Child, which fetches a page and hands off a
 * partial, low-confidence result with gaps; then Main only searches, never
 * answers, and is stopped by its turn limit: it settles with a partial answer
 * built from the handoff it holds (exit 3), and the handoff is shown whole.
 */
function wire(body: WireRequestBody): WireBehaviour {
  const messages = messagesOf(body);
  if (systemOf(body).startsWith("You are Main")) {
    if (messages.length === 1) {
      const task = { question: "What is ADIV's ongoing charge?", context: `USD Distributing class; start from ${PAGE}`, done_when: "The charge is stated with its source.", profile: "web-explorer" };
      return reply([{ type: "tool_use", name: "delegate", input: task }]);
    }
    return reply([{ type: "tool_use", name: "web_search", input: { query: "ADIV" } }]);
  }
  if (systemOf(body).startsWith("You are a Child")) {
    if (messages.length === 1) return reply([{ type: "tool_use", name: "web_fetch", input: { url: PAGE } }]);
    const fetched = blocks(messages[1]).find((b) => b.type === "tool_use")!;
    const handoff = {
      summary: "[web-explorer] The ongoing charge is being cut; one-time charges not checked.",
      findings: [
        { claim: "The ongoing charge falls to 0.29% on 1 October 2026.", evidence: { toolResults: [fetched.id], citations: [] }, confidence: "medium" },
      ],
      measurementBasis: BASIS,
      artifacts: [],
      gaps: [GAP],
      executionState: "partial",
      confidence: "low",
      caveats: ["From search snippets only."],
    };
    return reply([{ type: "tool_use", name: "handoff", input: handoff }]);
  }
  return httpError(400, "invalid_request_error", "the test did not expect this request");
}

describe("ariadne run when Main cannot finish: what the Children found is shown whole", () => {
  let server: AnthropicWireServer;
  let store: CliStore;
  let text: CliResult;
  let json: CliResult;
  before(async () => {
    server = await startAnthropicWireServer({ handler: wire });
    store = await cliStore("failed");
    // A real run's tools over the shared corpus: its local index and its pages (ARIADNE_SEARCH=corpus).
    const env = { ...store.env, ANTHROPIC_API_KEY: "sk-test", ANTHROPIC_BASE_URL: server.url, ARIADNE_SEARCH: "corpus" };
    text = await ariadne(["run", "What does ADIV cost me?", ...store.args], env);
    json = await ariadne(["run", "--json", "What does ADIV cost me?", ...store.args], env);
  });
  after(async () => {
    await server?.close();
    await store?.dispose();
  });

  test("--json carries the handoff whole: findings, evidence, basis, artifacts, gaps, state, confidence", () => {
    assert.equal(json.code, 3, json.stderr);
    const result = JSON.parse(json.stdout);
    assert.equal(result.outcome, "answer");
    assert.equal(result.partial, true);
    assert.match(result.answer.summary, /^Partial answer: .*turn limit/);
    const handoffs = Object.values(result.handoffs) as Record<string, unknown>[];
    assert.equal(handoffs.length, 1);
    const [h] = handoffs;
    assert.equal(h.profile, "web-explorer");
    assert.deepEqual(h.measurementBasis, BASIS);
    assert.deepEqual(h.gaps, [GAP]);
    assert.deepEqual(h.artifacts, []);
    assert.equal(h.executionState, "partial");
    assert.equal(h.confidence, "low");
    assert.deepEqual(h.caveats, ["From search snippets only."]);
    const [finding] = h.findings as { claim: string; confidence: string; evidence: { toolResults: string[]; citations: string[] } }[];
    assert.equal(finding.claim, "The ongoing charge falls to 0.29% on 1 October 2026.");
    assert.equal(finding.confidence, "medium");
    assert.equal(finding.evidence.toolResults.length, 1);
    assert.deepEqual(finding.evidence.citations, []);
  });

  test("ariadne show says the answer is partial, in text and --json, never answered", async () => {
    const { runId } = JSON.parse(json.stdout);
    const shown = await ariadne(["show", runId, ...store.args], store.env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^run ${runId}: partial answer`));
    assert.match(shown.stdout, /^ +main \S+: partial answer/m);
    assert.doesNotMatch(shown.stdout, /answered/);
    const view = JSON.parse((await ariadne(["show", runId, "--json", ...store.args], store.env)).stdout);
    assert.equal(view.executors.find((x: { role: string }) => x.role === "main").status, "partial_answer");
  });

  test("text mode says the answer is partial and prints the same handoff whole", () => {
    assert.equal(text.code, 3, text.stderr);
    const out = text.stdout;
    assert.match(out, /PARTIAL ANSWER: a limit stopped Main/);
    // The closing line agrees: a partial answer is never "check: supported".
    assert.match(out, /^check: (?:unsupported|incomplete) \(.+\)/m);
    assert.doesNotMatch(out, /^check: supported/m);
    assert.match(out, /What the Children handed back \(1\):/);
    for (const part of [
      "handoff of child:web-explorer (",
      "): partial, confidence low",
      "  summary: [web-explorer] The ongoing charge is being cut; one-time charges not checked.",
      "    0. [medium] The ongoing charge falls to 0.29% on 1 October 2026.",
      "       evidence: tool result ",
      "    sources: adiv-fee-announcement",
      "    dates: 2026-10-01",
      "    units: % per year",
      "    scope: USD Distributing share class only",
      "  artifacts:\n    none",
      `  gaps:\n    - ${GAP}`,
      "  caveats:\n    - From search snippets only.",
    ]) {
      assert.ok(out.includes(part), `text output lacks ${JSON.stringify(part)}:\n${out}`);
    }
  });
});
