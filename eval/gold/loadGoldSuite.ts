import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { ValidationError, fromZodIssues } from "../../core/errors.ts";
import { type GoldCase, GoldCaseLine } from "./goldCase.ts";

/** A corpus folder has the shared corpus's layout: web/manifest.jsonl, pdf/manifest.jsonl or a data/ folder. */
const hasCorpusLayout = (dir: string): boolean =>
  existsSync(join(dir, "web", "manifest.jsonl")) || existsSync(join(dir, "pdf", "manifest.jsonl")) || (existsSync(join(dir, "data")) && statSync(join(dir, "data")).isDirectory());

/**
 * A suite file (one JSON case a line; blank lines and lines starting with `//`
 * skipped), every line checked before any case runs: a line that is not JSON,
 * breaks the format, repeats an id or names a corpus folder without the
 * corpus layout is refused, naming the file, the line and the field.
 */
export async function loadGoldSuite(file: string): Promise<GoldCase[]> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new ValidationError("invalid suite", [{ path: [file], message: "no such file" }]);
  const lines = (await readFile(file, "utf8")).split(/\r?\n/);
  const cases: GoldCase[] = [];
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === "" || raw.trim().startsWith("//")) continue;
    const where = `invalid suite ${file} line ${i + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (e) {
      throw new ValidationError(where, [{ path: [], message: `not JSON: ${(e as Error).message}` }]);
    }
    const parsed = GoldCaseLine.safeParse(json);
    if (!parsed.success) throw new ValidationError(where, fromZodIssues(parsed.error.issues));
    const c = parsed.data;
    if (cases.some((x) => x.id === c.id)) throw new ValidationError(where, [{ path: ["id"], message: `"${c.id}" is already the id of line ${cases.find((x) => x.id === c.id)!.line}` }]);
    const corpusDir = resolve(dirname(file), c.corpus);
    if (!hasCorpusLayout(corpusDir)) throw new ValidationError(where, [{ path: ["corpus"], message: `${corpusDir} has no web/manifest.jsonl, pdf/manifest.jsonl or data/` }]);
    cases.push({ ...c, corpusDir, line: i + 1 });
  }
  if (cases.length === 0) throw new ValidationError("invalid suite", [{ path: [file], message: "holds no case" }]);
  return cases;
}
