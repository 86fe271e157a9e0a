import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readImportGraph, roomCycles, roomOf, fileCycles } from "../support/importGraph.ts";

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
    ["the fold", /^actors\/(executorMachine|executorState)\.ts$/, "^(actors/decide/|governance/)"],
    ["governance", /^governance\//, "^actors/"],
    ["events", /^events\//, "^(actors|runs|http|cli|governance|projections)/"],
    ["http", /^http\//, "^cli/"],
    ["decisions", /^actors\/decide\//, "^(db|runs|http|cli)/"],
  ];
  for (const [what, from, to] of forbidden) {
    it(`keeps ${what} from importing ${to}`, () => {
      const bad = [...graph].flatMap(([file, deps]) => (from.test(file) ? deps.filter((d) => new RegExp(to).test(d)).map((d) => `${file} -> ${d}`) : []));
      assert.deepEqual(bad, []);
    });
  }

  it("names rooms by their top-level folder", () => {
    assert.equal(roomOf("actors/decide/next.ts"), "actors");
  });
});
