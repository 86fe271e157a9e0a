import { test } from "node:test";
import assert from "node:assert/strict";
import { requestDigest } from "../../actors/request/buildRequest.ts";
import { normalizedRequest, replayKey, respondAs } from "../../eval/replay/replayKey.ts";
import type { ModelRequest, ModelResponse } from "../../models/types.ts";

const CHILD_A = "0f8e6a1c-7d7b-4c3e-9a53-6f1d2b9c0a11";
const CHILD_B = "5B2C9E44-1D0F-4A7E-8E3B-2C4D5E6F7A8B";

/** Main's request after two delegations and a fetch, in a run whose ids, clock and completion order are these. */
const mainRequest = (ids: [string, string], at: string, ms: number, order: [string, string]): ModelRequest => ({
  model: "claude-test",
  system: "You are Main.",
  maxTokens: 1000,
  messages: [
    { role: "user", content: "Compare A and B." },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_1", content: JSON.stringify({ child_executor_id: ids[0], run: ids[1], again: ids[0] }) },
        { type: "tool_result", tool_use_id: "toolu_2", content: `Fetched https://x.test/: HTTP 200, at ${at}. ${JSON.stringify({ duration_ms: ms, usage: { peak_processes: ms % 7, peak_memory_mb: ms % 13, workspace_written_mb: 0 }, record: { folder: ".compute/0123456789abcdef" }, artifact_id: "art-0123456789abcdef0123" })}` },
      ],
    },
  ],
  tools: [{ name: "handoff", description: "d", input_schema: { type: "object", properties: { toolUseId: { type: "string", enum: order } } } }],
});

test("the replay key is the same for two runs that differ only in ids, times, measured durations and usage, and completion order", () => {
  const first = mainRequest([CHILD_A, CHILD_B], "2026-12-01T21:28:07.123Z", 509, ["toolu_1", "toolu_2"]);
  const second = mainRequest(["aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "11111111-2222-4333-8444-555555555555"], "2027-01-02T03:04:05.000Z", 684, ["toolu_2", "toolu_1"]);
  assert.notEqual(requestDigest(first), requestDigest(second), "the audit digests differ, as the requests sent did");
  assert.equal(replayKey(first), replayKey(second));
  const { text, ids } = normalizedRequest(first);
  assert.deepEqual(ids, [CHILD_A, CHILD_B.toLowerCase(), "0123456789abcdef", "0123456789abcdef0123"], "ids in order of first appearance");
  assert.match(text, /child_executor_id\\":\\"<id:1>\\",\\"run\\":\\"<id:2>\\",\\"again\\":\\"<id:1>/);
  assert.match(text, /at <time>\./);
  assert.match(text, /duration_ms\\":<ms>/);
  assert.match(text, /peak_processes\\":<ms>,\\"peak_memory_mb\\":<ms>/, "compute's measured usage is normalised like a duration");
  assert.match(text, /\.compute\/<id:3>/);
  assert.match(text, /art-<id:4>/);
});

test("a changed prompt, tool output or id order changes the key", () => {
  const base = mainRequest([CHILD_A, CHILD_B], "2026-12-01T21:28:07.123Z", 509, ["toolu_1", "toolu_2"]);
  const key = replayKey(base);
  assert.notEqual(replayKey({ ...base, messages: [{ role: "user", content: "Compare A and C." }, base.messages[1]!] }), key);
  assert.notEqual(replayKey(mainRequest([CHILD_A, CHILD_A], "2026-12-01T21:28:07.123Z", 509, ["toolu_1", "toolu_2"])), key, "one Child twice is not two Children");
  assert.notEqual(replayKey({ ...base, system: "You are Main, briefly." }), key);
});

test("a recorded response is given with the recorded request's ids turned into this request's, other ids kept", () => {
  const recorded = mainRequest([CHILD_A, CHILD_B], "2026-12-01T21:28:07.123Z", 509, ["toolu_1", "toolu_2"]);
  const now = mainRequest(["aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", "11111111-2222-4333-8444-555555555555"], "2027-01-02T03:04:05.000Z", 684, ["toolu_1", "toolu_2"]);
  const unknown = "99999999-9999-4999-8999-999999999999";
  const response: ModelResponse = {
    content: [{ type: "tool_use", id: "toolu_9", name: "answer", input: { citations: [{ executor: CHILD_A }, { executor: unknown }] } }],
    stopReason: "tool_use",
    usage: { inputTokens: 1, outputTokens: 1 },
    model: "claude-test",
  } as ModelResponse;
  const given = respondAs(response, recorded, now);
  assert.deepEqual((given.content[0] as { input: unknown }).input, { citations: [{ executor: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee" }, { executor: unknown }] });
});
