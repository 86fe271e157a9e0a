import { test } from "node:test";
import assert from "node:assert/strict";
import { eventsByStream } from "../../events/eventsByStream.ts";
import type { RecordedEvent } from "../../events/index.ts";

const event = (streamId: string, streamVersion: number) => ({ streamId, streamVersion }) as RecordedEvent;

test("a run's events by stream, each stream in version order even where commit order had two versions the other way", () => {
  const streams = eventsByStream([event("a", 1), event("b", 1), event("a", 3), event("a", 2), event("b", 2)]);
  assert.deepEqual([...streams.keys()], ["a", "b"]);
  assert.deepEqual(streams.get("a")!.map((e) => e.streamVersion), [1, 2, 3]);
  assert.deepEqual(streams.get("b")!.map((e) => e.streamVersion), [1, 2]);
  assert.equal(eventsByStream([]).size, 0);
});
