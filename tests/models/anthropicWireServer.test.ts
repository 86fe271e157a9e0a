import { test } from "node:test";
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { startAnthropicWireServer } from "../../models/testing/anthropicWireServer.ts";
import { overloaded, reply, stall } from "../../models/testing/wireBehaviours.ts";
import { withWireServer, within } from "./fixtures.ts";

const body = (extra: Record<string, unknown> = {}) => ({
  model: "claude-test-1",
  max_tokens: 64,
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

const post = (url: string, payload: unknown, headers: Record<string, string> = { "x-api-key": "k" }) =>
  fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(payload),
  });

/** Splits an SSE body into [event name, parsed data] pairs. */
const parseSse = (text: string) =>
  text
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) => {
      const [eventLine, dataLine] = chunk.split("\n");
      return [eventLine.replace("event: ", ""), JSON.parse(dataLine.replace("data: ", ""))] as const;
    });

test("a streamed reply is sent as Anthropic's SSE sequence, tool input in several input_json_delta pieces", async () => {
  const input = { query: "labyrinth", depth: 2 };
  await withWireServer([reply([{ type: "text", text: "Looking." }, { type: "tool_use", name: "search", input }], { chunks: 4 })], async (server) => {
    const res = await post(server.url, body({ stream: true }));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = parseSse(await res.text());

    const names = events.map(([name]) => name);
    assert.deepEqual(names.slice(0, 3), ["message_start", "content_block_start", "ping"]);
    assert.deepEqual(names.slice(-3), ["content_block_stop", "message_delta", "message_stop"]);
    for (const [name, data] of events) assert.equal(data.type, name);

    const toolDeltas = events.filter(([n, d]) => n === "content_block_delta" && d.index === 1).map(([, d]) => d.delta);
    assert.ok(toolDeltas.length >= 4, `only ${toolDeltas.length} tool deltas`);
    assert.ok(toolDeltas.every((d) => d.type === "input_json_delta"));
    assert.equal(toolDeltas[0].partial_json, "");
    assert.deepEqual(JSON.parse(toolDeltas.map((d) => d.partial_json).join("")), input);

    const start = events.find(([n, d]) => n === "content_block_start" && d.index === 1)?.[1];
    assert.deepEqual(start.content_block, { type: "tool_use", id: "toolu_wire_1_1", name: "search", input: {} });
    const delta = events.find(([n]) => n === "message_delta")?.[1];
    assert.deepEqual(delta.delta, { stop_reason: "tool_use", stop_sequence: null });
    assert.equal(events[0][1].message.stop_reason, null);
  });
});

test("a plain request gets the whole Message as JSON, which the SDK's create() reads", async () => {
  await withWireServer([reply("Hello.", { usage: { input_tokens: 5, output_tokens: 2 } })], async (server) => {
    const client = new Anthropic({ apiKey: "k", baseURL: server.url, maxRetries: 0 });
    const message = await within(5_000, client.messages.create(body() as Anthropic.MessageCreateParamsNonStreaming));

    assert.equal(message.id, "msg_wire_1");
    assert.deepEqual(message.content, [{ type: "text", text: "Hello." }]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.input_tokens, 5);
    assert.equal(server.requests[0].body?.stream, undefined);
  });
});

test("an error is a JSON body shaped as Anthropic's, with a request-id header", async () => {
  await withWireServer([overloaded()], async (server) => {
    const res = await post(server.url, body({ stream: true }));

    assert.equal(res.status, 529);
    assert.equal(res.headers.get("request-id"), "req_wire_1");
    assert.deepEqual(await res.json(), {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
      request_id: "req_wire_1",
    });
  });
});

test("requests that the real API would refuse are refused the same way, and recorded", async () => {
  await withWireServer([], async (server) => {
    assert.equal((await post(server.url, body(), {})).status, 401);
    const missing = await post(server.url, { model: "m", messages: [{ role: "user", content: "x" }] });
    assert.equal(missing.status, 400);
    assert.match((await missing.json()).error.message, /max_tokens/);
    assert.equal((await fetch(`${server.url}/v1/other`, { method: "POST" })).status, 404);
    assert.equal(server.requests.length, 3);
  });
});

test("without a queued behaviour or handler a request gets a 400 naming the problem", async () => {
  await withWireServer([], async (server) => {
    const res = await post(server.url, body());
    assert.equal(res.status, 400);
    assert.match((await res.json()).error.message, /no behaviour for request #1/);
  });
});

test("the handler answers once the queue is empty, with the body and the request index", async () => {
  await withWireServer([reply("queued")], async (server) => {
    const seen: number[] = [];
    server.setHandler((b, index) => {
      seen.push(index);
      return reply(`handled ${b.model}`);
    });

    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await (await post(server.url, body())).json()).content[0].text);

    assert.deepEqual(texts, ["queued", "handled claude-test-1", "handled claude-test-1"]);
    assert.deepEqual(seen, [1, 2]);
    assert.equal(server.pending(), 0);
  });
});

test("a handler that throws gets a 500 naming the problem, and the server keeps serving", async () => {
  await withWireServer([], async (server) => {
    server.setHandler((_b, index) => {
      if (index === 0) throw new Error("bad fixture");
      return reply("fine");
    });

    const broken = await post(server.url, body());
    assert.equal(broken.status, 500);
    assert.match((await broken.json()).error.message, /handler threw: bad fixture/);
    assert.equal((await post(server.url, body())).status, 200);
  });
});

test("close() returns promptly even with a stalled stream open", async () => {
  const server = await startAnthropicWireServer({ behaviours: [stall(2)] });
  const res = await post(server.url, body({ stream: true }));
  const reader = res.body!.getReader();
  await reader.read();

  await within(2_000, server.close());
  await reader.read().catch(() => undefined);
});
