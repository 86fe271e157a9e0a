import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { AnthropicModel } from "../../models/anthropicModel.ts";
import { type AnthropicWireServer, type WireRequestBody, httpError, reply, startAnthropicWireServer } from "../../models/testing/index.ts";
import { ToolRegistry, createCorpusTools, defineTool } from "../../tools/index.ts";
import { forEachEngine } from "../support/forEachEngine.ts";
import { answerOf, ofType, runtimeWith, streamOf, within } from "./fixtures.ts";

// What PostgreSQL's jsonb cannot hold, so the event log refuses it.
const NUL = "\u0000";
const LONE = "\ud800";

/** A tool whose output carries U+0000, as a binary-ish document read can. */
const rawBytes = defineTool({
  name: "read_raw",
  description: "Returns a file's bytes as text.",
  input: z.object({ path: z.string() }),
  effect: "read_only",
  run: ({ path }) => `header${NUL}${NUL}of ${path}`,
});

const answer = { summary: "Done.", sections: [{ heading: "Result", claims: [{ text: "Read it.", basis: "judgment", citations: [] }] }] };
const turnOf = (body: WireRequestBody) => body.messages.length;

forEachEngine("text the log cannot hold is cleaned at the boundary and the run goes on", (ctx) => {
  let server: AnthropicWireServer;
  before(async () => {
    server = await startAnthropicWireServer();
  });
  after(() => server.close());

  const runtimeOver = () =>
    runtimeWith(
      ctx.store,
      {
        main: new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries: 0, idleTimeoutMs: 5_000 }),
        child: new AnthropicModel({ apiKey: "test", baseURL: server.url, maxRetries: 0, idleTimeoutMs: 5_000 }),
      },
      { tools: new ToolRegistry().register(...createCorpusTools(), rawBytes), modelNames: { main: "claude-main-test", child: "claude-child-test" } },
    );

  test("a model reply with U+0000 and a lone surrogate (in text and tool input) is recorded cleaned, with what was replaced", { timeout: 30_000 }, async () => {
    server.setHandler((body) => {
      if (turnOf(body) === 1) {
        return reply([
          { type: "text", text: `Looking${NUL} at it ${LONE}now${NUL}` },
          { type: "tool_use", name: "search_corpus", input: { query: `ADIV${NUL} fees` } },
        ]);
      }
      if (turnOf(body) === 3) return reply([{ type: "tool_use", name: "answer", input: answer }]);
      return httpError(400, "invalid_request_error", "the test did not expect this request");
    });
    const run = await runtimeOver().startRun("What does ADIV cost?");
    answerOf(await within(20_000, run.result));

    const [first] = ofType(await streamOf(ctx.store, run.mainExecutorId), "turn");
    assert.deepEqual(first.data.sanitized, [
      "U+0000 x2 in content[0].text",
      "lone surrogate x1 in content[0].text",
      "U+0000 x1 in content[1].input.query",
    ]);
    const [text, use] = first.data.response.content as unknown as [{ text: string }, { input: { query: string } }];
    assert.equal(text.text, "Looking\uFFFD at it \uFFFDnow\uFFFD");
    assert.equal(use.input.query, "ADIV\uFFFD fees");
  });

  test("a tool output with U+0000 is recorded cleaned, with what was replaced, and the model sees the cleaned text", { timeout: 30_000 }, async () => {
    server.requests.length = 0;
    server.setHandler((body) => {
      if (turnOf(body) === 1) return reply([{ type: "tool_use", name: "read_raw", input: { path: "fund.bin" } }]);
      if (turnOf(body) === 3) return reply([{ type: "tool_use", name: "answer", input: answer }]);
      return httpError(400, "invalid_request_error", "the test did not expect this request");
    });
    const run = await runtimeOver().startRun("What is in fund.bin?");
    answerOf(await within(20_000, run.result));

    const main = await streamOf(ctx.store, run.mainExecutorId);
    const [completed] = ofType(main, "tool_completed");
    assert.equal(completed.data.output, "header\uFFFD\uFFFDof fund.bin");
    assert.deepEqual(completed.data.sanitized, ["U+0000 x2 in output"]);
    assert.equal(ofType(main, "turn")[0].data.sanitized, undefined, "a clean reply records nothing");
    const shown = (server.requests[1].body!.messages.at(-1) as { content: { content: string }[] }).content[0].content;
    assert.equal(shown, "header\uFFFD\uFFFDof fund.bin");
  });
});
