import { test } from "node:test";
import assert from "node:assert/strict";
import { currentSchemaVersion } from "../../events/catalogue.ts";
import { rowToEvent } from "../../events/rowToEvent.ts";
import { validateEvents } from "../../events/validateEvents.ts";

const row = (schemaVersion: number, data: unknown) => ({
  global_position: "7",
  event_id: "00000000-0000-4000-8000-000000000007",
  stream_id: "executor-x",
  stream_version: 3,
  run_id: "r",
  executor_id: "x",
  type: "tool_completed",
  schema_version: schemaVersion,
  data,
  metadata: { runId: "r", executorId: "x", causationId: null, correlationId: "r" },
  recorded_at: "2026-12-01T00:00:00.000Z",
  prev_hash: "0".repeat(64),
  hash: "1".repeat(64),
});

test("tool_completed is written at version 3 (a read-only call's intent may ride with it), with sources defaulting to none", () => {
  assert.equal(currentSchemaVersion("tool_completed"), 3);
  const [valid] = validateEvents([{ type: "tool_completed", data: { toolUseId: "t1", tool: "x", output: "ok" }, metadata: { runId: "r", executorId: "x" } }]);
  assert.equal(valid.schemaVersion, 3);
  assert.deepEqual(valid.data, { toolUseId: "t1", tool: "x", output: "ok", artifacts: [], sources: [] });
});

test("a version 1 tool_completed still reads, upcast with no sources; its hashed payload is untouched", () => {
  const v1 = { toolUseId: "t1", tool: "search_corpus", output: "found", artifacts: [] };
  const event = rowToEvent(row(1, v1));
  assert.equal(event.schemaVersion, 1);
  assert.deepEqual(event.data, { ...v1, sources: [] });
  assert.deepEqual(v1, { toolUseId: "t1", tool: "search_corpus", output: "found", artifacts: [] });
});

test("a version 2 source must name its blobs by sha256", () => {
  const source = { kind: "web_page" as const, url: "https://a.test/", contentType: "text/html", fetchedAt: "2026-12-01T00:00:00Z", rawSha256: "a".repeat(64), textSha256: "nope", bytes: 3 };
  assert.throws(
    () => validateEvents([{ type: "tool_completed", data: { toolUseId: "t1", tool: "web_fetch", output: "x", sources: [source] }, metadata: { runId: "r", executorId: "x" } }]),
    /sources\.0\.textSha256/,
  );
});
