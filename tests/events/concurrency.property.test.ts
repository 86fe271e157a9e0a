import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ConcurrencyError } from "../../core/errors.ts";
import type { NewEvent } from "../../events/index.ts";
import { type EngineContext, forEachEngine, uniqueId } from "../support/forEachEngine.ts";
import { turnEvent } from "./fixtures.ts";

/** One append call as a writer saw it. */
type Attempt =
  | { writer: number; expected: number; size: number; won: true; eventIds: string[] }
  | { writer: number; expected: number; size: number; won: false; actual: number };

forEachEngine("concurrent appends to one stream (property)", (ctx) => {
  test("exactly one winner per version, every loser told ConcurrencyError, no gap, no duplicate, intact chain", { timeout: 120_000 }, async () => {
    let conflicts = 0;
    await fc.assert(
      fc.asyncProperty(
        // Per writer, the sizes of the batches it appends one after another.
        fc.array(fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 8 }),
        async (plans) => {
          const stream = uniqueId("race");
          const attempts = await race(ctx, stream, plans);
          conflicts += attempts.filter((a) => !a.won).length;
          await assertOneWinnerPerVersion(ctx, stream, plans, attempts);
        },
      ),
      { numRuns: 20 },
    );
    assert.ok(conflicts > 0, "the writers never collided, so nothing was tested");
  });
});

/**
 * Every writer appends its batches with the version it last read, and on
 * ConcurrencyError reloads the version and tries again. Any other error fails.
 */
async function race(ctx: EngineContext, stream: string, plans: number[][]): Promise<Attempt[]> {
  const run = uniqueId("run");
  const attempts: Attempt[] = [];
  await Promise.all(
    plans.map(async (sizes, writer) => {
      let expected = await ctx.store.streamVersion(stream);
      for (const size of sizes) {
        for (;;) {
          const events: NewEvent[] = Array.from({ length: size }, (_, i) => turnEvent(run, `writer-${writer}`, expected + i + 1));
          try {
            const result = await ctx.store.append(stream, expected, events);
            attempts.push({ writer, expected, size, won: true, eventIds: result.events.map((e) => e.eventId) });
            expected = result.nextExpectedVersion;
            break;
          } catch (e) {
            if (!(e instanceof ConcurrencyError)) throw e;
            attempts.push({ writer, expected, size, won: false, actual: e.actualVersion });
            expected = await ctx.store.streamVersion(stream);
          }
        }
      }
    }),
  );
  return attempts;
}

async function assertOneWinnerPerVersion(ctx: EngineContext, stream: string, plans: number[][], attempts: Attempt[]) {
  const total = plans.flat().reduce((a, b) => a + b, 0);
  const winners = attempts.filter((a) => a.won).sort((a, b) => a.expected - b.expected);

  // Every planned batch won exactly once, and the winners tile versions 1..total with no gap or overlap.
  assert.equal(winners.length, plans.flat().length);
  let next = 0;
  for (const w of winners) {
    assert.equal(w.expected, next, `version ${next + 1} has no winner, or two`);
    next += w.size;
  }
  assert.equal(next, total);

  // Every loser was told the stream had moved past its expected version.
  for (const loser of attempts.filter((a) => !a.won)) {
    assert.ok(loser.actual > loser.expected, `writer ${loser.writer} lost at ${loser.expected} to version ${loser.actual}`);
  }

  // The stored stream is exactly the winners' events, in order, each once.
  const stored = await ctx.store.readStream(stream);
  assert.deepEqual(stored.map((e) => e.streamVersion), Array.from({ length: total }, (_, i) => i + 1));
  assert.deepEqual(stored.map((e) => e.eventId), winners.flatMap((w) => w.eventIds));
  assert.deepEqual(stored.map((e) => e.metadata.executorId), winners.flatMap((w) => Array(w.size).fill(`writer-${w.writer}`)));
  assert.equal(new Set(stored.map((e) => e.eventId)).size, total);
  assert.equal(await ctx.store.streamVersion(stream), total);
  assert.deepEqual(await ctx.store.verify(stream), { ok: true, streamId: stream, count: total, lastHash: stored.at(-1)!.hash });
}
