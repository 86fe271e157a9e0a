import { after, before, describe } from "node:test";
import type { Engine } from "../../db/index.ts";
import { createEventStore, type EventStore } from "../../events/index.ts";
import type { Clock, IdGenerator } from "../../core/clock.ts";
import { LANE_ENGINES, MATRIX_ENGINES, type TestDatabase, openTestDatabase } from "./testDatabase.ts";

export interface EngineContext {
  engine: Engine;
  /** Available inside tests (set up in a before hook). */
  db: TestDatabase;
  store: EventStore;
}

/**
 * Declares the same suite once per engine (real PostgreSQL and PGlite; LANE_ENGINES), each
 * with its own migrated database and event store. `endToEnd`: the suite runs the runtime end to
 * end, and keeps every lane where the engine matrices are narrowed (MATRIX_ENGINES, under Deno).
 */
export function forEachEngine(
  title: string,
  suite: (ctx: EngineContext) => void,
  options: { clock?: Clock; newId?: IdGenerator; endToEnd?: boolean } = {},
): void {
  describe(title, () => {
    for (const engine of options.endToEnd ? LANE_ENGINES : MATRIX_ENGINES) {
      describe(engine, () => {
        const ctx = { engine } as EngineContext;
        before(async () => {
          ctx.db = await openTestDatabase(engine);
          ctx.store = createEventStore(ctx.db.database, options);
        });
        // The shared PGlite instance lives until the process ends; PostgreSQL databases are dropped.
        after(() => ctx.db?.dispose());
        suite(ctx);
      });
    }
  });
}

let counter = 0;
/** A stream or run id no other test in this process uses. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;
}
