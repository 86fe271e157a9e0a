import { existsSync } from "node:fs";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ValidationError, fromZodIssues } from "../core/errors.ts";
import { findScenario } from "../scenarios/index.ts";
import { type EvalCase, EvalCaseFile } from "./evalCase.ts";

/** The shipped offline suite, run when `ariadne eval` names none. */
export const OFFLINE_SUITE_DIR = fileURLToPath(new URL("./suites/offline/", import.meta.url));

/** A suite's cases: one folder each with a case.json, in name order; a bad file is named with its zod issue path. */
export async function loadSuite(dir: string): Promise<EvalCase[]> {
  if (!existsSync(dir)) throw new ValidationError("invalid suite", [{ path: [dir], message: "no such folder" }]);
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, "case.json")));
  if (entries.length === 0) throw new ValidationError("invalid suite", [{ path: [dir], message: "holds no <case>/case.json" }]);
  const cases: EvalCase[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(dir, entry.name, "case.json");
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(file, "utf8"));
    } catch (e) {
      throw new ValidationError(`invalid case ${file}`, [{ path: [], message: `not JSON: ${(e as Error).message}` }]);
    }
    const parsed = EvalCaseFile.safeParse(raw);
    if (!parsed.success) throw new ValidationError(`invalid case ${file}`, fromZodIssues(parsed.error.issues));
    const c = parsed.data;
    cases.push({ ...c, id: entry.name, dir: path.join(dir, entry.name), question: c.question ?? findScenario(c.scenario!)!.question });
  }
  return cases;
}
