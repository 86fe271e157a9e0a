import { readFileSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join, normalize, relative } from "node:path";

/** Folders that hold the product's sources (tests, benches and dependencies are not part of the layering). */
const SKIP = new Set(["node_modules", "tests", "bench", ".git", ".ariadne", ".ci", "docs"]);

/** Every .ts/.tsx source file (repo-relative) with the repo-relative files it imports. */
export function readImportGraph(root: URL): Map<string, string[]> {
  const base = fileURLToPath(root);
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(base)) {
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

/** Every .ts/.tsx source file under base (repo-relative), outside the skipped folders and the repo's top level. */
function sourceFiles(base: string): string[] {
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
  return files;
}

/** Packages that open or query a database: a driver, the query builder, or its dialects. */
const DATABASE_PACKAGES = /^(kysely|kysely-[\w-]+|pg|pg-[\w-]+|@electric-sql\/pglite)(\/.*)?$/;
/** The handle's query builder called outside the rooms that own the tables: `database.db.selectFrom(`, `.db.transaction(`. */
const QUERY_CALL = /\.db\s*\.\s*(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom|with|transaction|connection|executeQuery|introspection|schema)\b/;
/** Every module specifier a source names: static and type-only imports, re-exports, dynamic and inline type imports. */
const SPECIFIERS = [/^\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']/gm, /^\s*import\s+["']([^"']+)["']/gm, /\bimport\(\s*["']([^"']+)["']\s*\)/g];

/**
 * Where a source file outside the `allowed` rooms reaches the database: an
 * import of a database package or of db/schema.ts (the table types), or a call
 * into a Database handle's query builder. One line per finding, "file:line: what".
 */
export function databaseReaches(root: URL, allowed: readonly string[]): string[] {
  const base = fileURLToPath(root);
  const found: string[] = [];
  for (const file of sourceFiles(base)) {
    if (allowed.includes(roomOf(file))) continue;
    const source = readFileSync(join(base, file), "utf8");
    const lineOf = (index: number) => source.slice(0, index).split("\n").length;
    for (const pattern of SPECIFIERS) {
      for (const m of source.matchAll(pattern)) {
        const spec = m[1];
        const local = spec.startsWith(".") ? normalize(join(dirname(file), spec)) : null;
        if (DATABASE_PACKAGES.test(spec)) found.push(`${file}:${lineOf(m.index)}: imports ${spec}`);
        else if (local === "db/schema.ts") found.push(`${file}:${lineOf(m.index)}: imports the table types (db/schema.ts)`);
      }
    }
    for (const m of source.matchAll(new RegExp(QUERY_CALL, "g"))) found.push(`${file}:${lineOf(m.index)}: queries through the handle (${m[0].replace(/\s+/g, "")})`);
  }
  return found.sort();
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

/** A static import or re-export that loads a module at run time (`import type` and `export type` are erased). */
const LOADING_IMPORT = /^\s*(import|export)\s+(?!type\s)[^;]*?\sfrom\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;

/**
 * The packages a module loads before any of its code runs: the closure of its
 * static, non-type imports (dynamic `import()` is left out: it loads on use),
 * each package with the chain of files that reaches it first.
 */
export function packagesLoadedBy(root: URL, entry: string): Map<string, string[]> {
  const base = fileURLToPath(root);
  const packages = new Map<string, string[]>();
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    const source = readFileSync(join(base, file), "utf8");
    for (const m of source.matchAll(LOADING_IMPORT)) {
      const spec = m[2] ?? m[3];
      if (spec.startsWith("node:")) continue;
      if (spec.startsWith(".")) {
        const dep = normalize(join(dirname(file), spec));
        if (!seen.has(dep)) {
          seen.set(dep, [...seen.get(file)!, dep]);
          queue.push(dep);
        }
        continue;
      }
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      if (!packages.has(name)) packages.set(name, seen.get(file)!);
    }
  }
  return packages;
}
