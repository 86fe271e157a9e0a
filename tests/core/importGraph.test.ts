import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readImportGraph, roomCycles, roomOf, fileCycles, databaseReaches } from "../support/importGraph.ts";

/**
 * The layering the README draws, checked on the real sources: data flows one
 * way between rooms, so no room imports a room that imports it back, and no
 * file is part of an import cycle. Type-only imports count too: a cycle of
 * types is still a knot for whoever changes one side.
 */
const graph = readImportGraph(new URL("../../", import.meta.url));

describe("the import graph", () => {
  it("reads the source tree", () => {
    assert.ok(graph.size > 150, `expected the whole tree, read ${graph.size} files`);
    assert.ok([...graph.keys()].some((f) => f.startsWith("actors/")));
  });

  it("has no file in an import cycle", () => {
    const cycles = fileCycles(graph);
    assert.deepEqual(cycles, [], `import cycles:\n${cycles.map((c) => `  ${c.join(" -> ")}`).join("\n")}`);
  });

  it("has no cycle between rooms (top-level folders)", () => {
    const cycles = roomCycles(graph);
    assert.deepEqual(cycles, [], `rooms importing each other:\n${cycles.map((c) => `  ${c.join(" -> ")}`).join("\n")}`);
  });

  const forbidden: [string, RegExp, string][] = [
    ["the fold", /^actors\/fold\//, "^(actors/decide/|governance/)"],
    // The fold reads what a model was shown from the log; the templates that render it are the request wing's.
    ["the fold", /^actors\/fold\//, "^actors/request/"],
    ["governance", /^governance\//, "^actors/"],
    ["events", /^events\//, "^(actors|runs|http|cli|governance|projections)/"],
    ["http", /^http\//, "^cli/"],
    ["decisions", /^actors\/decide\//, "^(db|runs|http|cli)/"],
    ["leases", /^runs\/lease\//, "^runs/host/"],
  ];
  for (const [what, from, to] of forbidden) {
    it(`keeps ${what} from importing ${to}`, () => {
      const bad = [...graph].flatMap(([file, deps]) => (from.test(file) ? deps.filter((d) => new RegExp(to).test(d)).map((d) => `${file} -> ${d}`) : []));
      assert.deepEqual(bad, []);
    });
  }

  /**
   * Only db/, events/ and runs/ reach the database (migrations/ define it; bench/ and tests/ measure and
   * check it). Elsewhere a file may hold the opaque `Database` handle (and its `Engine` type) to pass
   * on to those rooms, but it may not import a driver or query builder (kysely, pg, PGlite), the
   * table types (db/schema.ts), nor call the handle's query builder (`x.db.selectFrom(...)`): any of
   * these is a query written outside the rooms that own the tables.
   */
  it("lets only db/, events/ and runs/ reach the database", () => {
    const reaches = databaseReaches(new URL("../../", import.meta.url), ["db", "events", "runs", "migrations"]);
    assert.deepEqual(reaches, [], `move these queries into db/, events/ or runs/ and call a narrow function:\n${reaches.map((r) => `  ${r}`).join("\n")}`);
  });

  it("names rooms by their top-level folder", () => {
    assert.equal(roomOf("actors/decide/next.ts"), "actors");
  });
});
