import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { childPolicy } from "../../models/baseline/childPolicy.ts";
import { pickPassages } from "../../models/baseline/passages.ts";
import { contentWords, facetsOf } from "../../models/baseline/questionTerms.ts";
import type { ModelRequest } from "../../models/types.ts";

describe("the baseline researcher's reading rules", () => {
  test("a question's facets are its clauses, each carrying the names of the first", () => {
    assert.deepEqual(facetsOf("What does the Raspberry Pi 3 cost, and what CPU does it have?"), ["What does the Raspberry Pi 3 cost", "what CPU does it have (raspberry pi 3)"]);
    assert.deepEqual(facetsOf("What was General Motors' gross investment in 1935?"), ["What was General Motors' gross investment in 1935?"]);
    assert.deepEqual(contentWords("How much does the Xbox One X cost?"), ["xbox", "one", "cost"]);
  });

  test("a term every passage holds weighs little: the sentence with the rare term and the figure wins, links and headings never do", () => {
    const page = [
      "### Xbox One X review",
      "- [1 Reviews](https://example.test/xbox/one/x/cost/)",
      "The Xbox One X is the most powerful Xbox One yet. The Xbox One X has a 4K drive, as every Xbox One S does.",
      "The One X costs $500, while Sony's console launched at $400.",
    ].join("\n\n");
    const [best] = pickPassages(page, contentWords("How much does the Xbox One X cost?"), { wantsNumber: true });
    assert.equal(best!.text, "The One X costs $500, while Sony's console launched at $400.");
  });

  test("list items are read one by one, CSV rows with their header, and only the best-matching rows kept", () => {
    const list = "+ Added Granite, Andesite, and Diorite stone blocks\n+ Added Slime Block\n+ Added Iron Trapdoor";
    assert.equal(pickPassages(list, contentWords("Which stone blocks did it add?"))[0]!.text, "+ Added Granite, Andesite, and Diorite stone blocks");
    const csv = "invest,value,firm,year\n317.6,3078.5,General Motors,1935\n391.8,4661.7,General Motors,1936\n209.9,1362.4,US Steel,1935";
    const rows = pickPassages(csv, contentWords("What was General Motors' investment in 1935?"), { csv: true });
    assert.deepEqual(rows.map((r) => r.text), ["317.6,3078.5,General Motors,1935"]);
  });
});

/** A Child's request after its search and one fetched page of `pageChars` characters, under a budget. */
function childRequest(pageChars: number): ModelRequest {
  const page = `<untrusted_source url="https://pages.corpus.test/a/">\n${"Filler words here. ".repeat(Math.ceil(pageChars / 19))}\n</untrusted_source>`;
  const results = JSON.stringify({ query: "q", results: [{ title: "A", url: "https://pages.corpus.test/a/", snippet: "" }, { title: "B", url: "https://pages.corpus.test/b/", snippet: "" }] });
  return {
    model: "m",
    system: "s",
    maxTokens: 4096,
    tools: [],
    messages: [
      { role: "user", content: "Question: What does the widget cost?\n\nContext:\nnone\n\nDone when: quoted" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "web_search", input: { query: "widget cost" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: `<untrusted_source kind="search_results">\n${results}\n</untrusted_source>` }] },
      { role: "assistant", content: [{ type: "tool_use", id: "t2", name: "web_fetch", input: { url: "https://pages.corpus.test/a/" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: page }] },
    ],
  };
}

describe("a baseline Child plans its reads within its token budget", () => {
  const next = (request: ModelRequest, budget: number) => childPolicy(request, budget).content.map((b) => (b.type === "tool_use" ? b.name : "text"));
  test("with room for another page it reads the next search result; without, it hands off what it has", () => {
    assert.deepEqual(next(childRequest(4_000), 60_000), ["web_fetch"]);
    assert.deepEqual(next(childRequest(40_000), 60_000), ["web_fetch"]);
    assert.deepEqual(next(childRequest(40_000), 30_000), ["handoff"]);
    assert.deepEqual(next(childRequest(4_000), 15_000), ["handoff"]);
  });
});

describe("ariadne run --model baseline: what it refuses (exit 2, before any store is opened)", () => {
  const run = (argv: string[], env: Record<string, string> = {}) => main(["run", ...argv, "--data-dir", "/nonexistent/never-created"], () => {}, readConfig(env));
  test("no question, a scenario with it, or an unknown --model / ARIADNE_MODEL", async () => {
    assert.equal(await run(["--model", "baseline"]), 2);
    assert.equal(await run(["--model", "baseline", "--scenario", "etf-overlap"]), 2);
    assert.equal(await run(["What is it?", "--model", "gpt"]), 2);
    assert.equal(await run(["What is it?"], { ARIADNE_MODEL: "nope" }), 2);
  });
});
