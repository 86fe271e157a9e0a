import { readFileSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, normalize, relative } from "node:path";

/** Folders that hold the product's sources (tests, benches and dependencies are not part of the layering). */
const SKIP = new Set(["node_modules", "tests", "bench", ".git", ".ariadne", ".ci", "docs"]);

/** Every .ts/.tsx source file (repo-relative) with the repo-relative files it imports. */
export function readImportGraph(root: URL): Map<string, string[]> {
  const base = fileURLToPath(root);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!SKIP.has(name) && !name.startsWith(".")) walk(path);
      } else if (/\.tsx?$/.test(name) && dir !== base) files.push(relative(base, path));
    }
  };
  walk(base);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = readFileSync(join(base, file), "utf8");
    const deps = new Set<string>();
    for (const m of source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.{1,2}\/[^"]+)"/gm)) {
      deps.add(normalize(join(dirname(file), m[1])));
    }
    for (const m of source.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g)) deps.add(normalize(join(dirname(file), m[1])));
    graph.set(file, [...deps]);
  }
  return graph;
}

export const roomOf = (file: string): string => file.split("/")[0];

/** Strongly connected components of more than one file (Tarjan), each sorted. */
export function fileCycles(graph: Map<string, string[]>): string[][] {
  return components(graph).filter((c) => c.length > 1);
}

/** Cycles between rooms: components of the room graph with more than one room. */
export function roomCycles(graph: Map<string, string[]>): string[][] {
  const rooms = new Map<string, string[]>();
  for (const [file, deps] of graph) {
    const from = roomOf(file);
    const out = rooms.get(from) ?? [];
    for (const d of deps) if (roomOf(d) !== from && !out.includes(roomOf(d))) out.push(roomOf(d));
    rooms.set(from, out);
  }
  return components(rooms).filter((c) => c.length > 1);
}

function components(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      found.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
