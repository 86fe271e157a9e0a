import assert from "node:assert/strict";
import { test } from "node:test";
import { createCorpusTools, parseToolInput, ToolError, type Tool, type ToolContext } from "../../tools/index.ts";

const tools = new Map(createCorpusTools().map((t) => [t.name, t]));
const ctx: ToolContext = { runId: "run-1", executorId: "child-1", signal: new AbortController().signal, idempotencyKey: "intent-1" };

async function call(name: string, input: unknown): Promise<string> {
  const tool = tools.get(name) as Tool;
  const parsed = parseToolInput(tool, input);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.message);
  return tool.run(parsed.value, ctx);
}

test("search_corpus ranks the fee announcement first for a fee-change query", async () => {
  const out = JSON.parse(await call("search_corpus", { query: "ADIV ongoing charge effective date", limit: 3 }));
  assert.equal(out.results.length, 3);
  assert.equal(out.results[0].doc_id, "adiv-fee-announcement");
  assert.equal(out.results[0].citation, "[[corpus:adiv-fee-announcement#announcement]]");
  assert.match(out.results[0].snippet, /0\.38% to 0\.29%/);
});

test("read_document returns a section with its citation marker and text", async () => {
  const out = await call("read_document", { doc_id: "adiv-prospectus", section: "p13" });
  assert.match(out, /\[\[corpus:adiv-prospectus#p13\]\] Page 13: Notes to the fee table/);
  assert.match(out, /authorised participants/);
  assert.match(out, /As of: 2026-02-01/);
  assert.doesNotMatch(out, /Securities lending risk/, "only the requested section");
});

test("every corpus document says it is synthetic", async () => {
  const out = JSON.parse(await call("search_corpus", { query: "synthetic teaching document", limit: 20 }));
  assert.equal(out.results.length, 6);
});

test("quote_passage returns the exact passage and its citation marker", async () => {
  const out = JSON.parse(await call("quote_passage", { doc_id: "adiv-fee-announcement", contains: "reduced from 0.38%  TO 0.29%" }));
  assert.equal(out.citation, "[[corpus:adiv-fee-announcement#announcement]]");
  assert.match(out.passage, /^ACME Fund Management today announced/);
  assert.match(out.passage, /effective\n1 October 2026\./, "line breaks kept as written");
});

test("quote_passage brings the footnote a passage's (n) marker refers to, with its own citation", async () => {
  const lending = JSON.parse(await call("quote_passage", { doc_id: "adiv-prospectus", contains: "Securities lending risk" }));
  assert.match(lending.passage, /lending agent \(5\)\.$/);
  assert.deepEqual(lending.footnotes, [
    { marker: "(5)", text: "(5) The lending agent is an affiliate of ACME Fund Management.", citation: "[[corpus:adiv-prospectus#p18]]" },
  ]);
  // Notes on another page are found too; a passage without markers has none.
  const fees = JSON.parse(await call("quote_passage", { doc_id: "adiv-prospectus", contains: "Management fee (1)" }));
  assert.deepEqual(fees.footnotes.map((f: { marker: string; citation: string }) => [f.marker, f.citation]), [["(1)", "[[corpus:adiv-prospectus#p13]]"]]);
  const note = JSON.parse(await call("quote_passage", { doc_id: "adiv-prospectus", contains: "affiliate of ACME" }));
  assert.equal(note.footnotes, undefined);
});

test("quote_passage on a table keeps the header with the matching row", async () => {
  const out = JSON.parse(await call("quote_passage", { doc_id: "adiv-holdings", contains: "Woodgrove" }));
  assert.equal(out.passage.split("\n").length, 3);
  assert.match(out.passage, /\| Ticker \| Name \| Sector \| Weight \(%\) \|/);
  assert.match(out.passage, /\| WGB \| Woodgrove Bank \| Financials \| 1\.75 \|/);
});

test("compute_overlap states inputs, method, result, units and limitations", async () => {
  const out = JSON.parse(await call("compute_overlap", { portfolio_doc: "user-portfolio", etf_doc: "adiv-holdings" }));
  assert.equal(out.result.overlap_pct, 7.2);
  assert.deepEqual(
    out.result.common_holdings.map((c: { ticker: string }) => c.ticker),
    ["CTSO", "WGB", "FAB"],
  );
  assert.equal(out.result.portfolio_weight_in_common_pct, 19.5);
  assert.equal(out.inputs.etf.total_weight_pct, 22.5);
  assert.equal(out.inputs.portfolio.as_of, "2026-07-31");
  assert.match(out.method, /min\(portfolio weight, ETF weight\)/);
  assert.match(out.units, /percent/);
  assert.equal(out.limitations.length, 3, "top-10 coverage, date mismatch, funds not looked through");
  const again = await call("compute_overlap", { portfolio_doc: "user-portfolio", etf_doc: "adiv-holdings" });
  assert.deepEqual(JSON.parse(again), out, "deterministic");
});

test("tool failures say what to do next", async () => {
  await assert.rejects(call("read_document", { doc_id: "nope" }), (e: unknown) => e instanceof ToolError && /Known documents: adiv-factsheet/.test(e.message));
  await assert.rejects(call("read_document", { doc_id: "adiv-prospectus", section: "p14" }), /Sections: intro, p12, p13, p17, p18/);
  await assert.rejects(call("quote_passage", { doc_id: "adiv-factsheet", contains: "guaranteed returns" }), /Try a shorter phrase/);
  await assert.rejects(call("compute_overlap", { portfolio_doc: "user-portfolio", etf_doc: "adiv-prices" }), /Documents with holdings: adiv-holdings, user-portfolio/);
});
