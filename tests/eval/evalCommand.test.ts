import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { OFFLINE_SUITE_DIR } from "../../eval/loadSuite.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

const run = async (argv: string[], env: Record<string, string> = {}) => {
  const lines: string[] = [];
  const code = await main(["eval", ...argv], (l) => lines.push(l), readConfig(env));
  return { code, lines };
};

describe("ariadne eval: usage", () => {
  test("--help", async () => {
    const { code, lines } = await run(["--help"]);
    assert.equal(code, 0);
    assert.match(lines.join("\n"), /^usage: ariadne eval \[SUITE\] \[--baseline FILE\] \[--json\]/);
  });

  test("bad usage exits 2 before any store is opened", async () => {
    for (const argv of [["--lane", "nope"], ["--trials", "0"], ["--record"], ["/nonexistent/suite"], ["a", "b"], ["--single-agent", "--lane", "replay"]]) {
      assert.equal((await run([...argv, "--data-dir", "/nonexistent/never-created"])).code, 2, argv.join(" "));
    }
  });
});

describe(`ariadne eval: a suite's table, JSON and baseline gate (${ENGINES[0]})`, () => {
  let db: TestDatabase;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    db = await openTestDatabase(ENGINES[0]!);
    dir = await mkdtemp(join(tmpdir(), "ariadne-eval-cli-"));
    await cp(join(OFFLINE_SUITE_DIR, "raspberry-pi-3-price"), join(dir, "suite", "raspberry-pi-3-price"), { recursive: true });
    env = { ARIADNE_CORPUS_DIR: sharedCorpusDir(), ARIADNE_WORKSPACES: join(dir, "ws"), ...(db.url ? { DATABASE_URL: db.url } : {}) };
  });
  after(async () => {
    await db?.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  const store = () => (db.url ? [] : ["--data-dir", join(dir, "data")]);

  test("prints the table and `1 passed, 0 failed` last; --out keeps the JSON result, which as a baseline holds", async () => {
    const out = join(dir, "result.json");
    const first = await run([join(dir, "suite"), "--out", out, ...store()], env);
    assert.equal(first.code, 0, first.lines.join("\n"));
    assert.match(first.lines[0]!, /^\| case \| variant \| result \|/);
    assert.match(first.lines[2]!, /^\| raspberry-pi-3-price \| delegating \| pass \| 100% \|/);
    assert.equal(first.lines.at(-1), "1 passed, 0 failed");

    const again = await run([join(dir, "suite"), "--baseline", out, "--json", ...store()], env);
    assert.equal(again.code, 0, again.lines.join("\n"));
    const result = JSON.parse(again.lines[0]!);
    assert.deepEqual([result.passed, result.failed, result.gate.regressions], [1, 0, []]);
    assert.equal(again.lines.at(-1), "1 passed, 0 failed");
  });

  test("--single-agent scores the case as both variants and prints the comparison table; the JSON carries both and the comparison", async () => {
    const table = await run([join(dir, "suite"), "--single-agent", ...store()], env);
    assert.equal(table.code, 0, table.lines.join("\n"));
    assert.match(table.lines[2]!, /^\| raspberry-pi-3-price \| delegating \| pass \|/);
    assert.match(table.lines[3]!, /^\| raspberry-pi-3-price \| single-agent \| pass \|/);
    const comparison = table.lines.findIndex((l) => l.startsWith("| case | Main peak input: delegating / single agent |"));
    assert.ok(comparison > 3, table.lines.join("\n"));
    assert.match(table.lines[comparison + 2]!, /^\| raspberry-pi-3-price \| [\d,]+ \/ [\d,]+ \(×[\d.]+\) \|/);
    assert.equal(table.lines.at(-1), "2 passed, 0 failed");
  });

  test("a baseline case the run no longer scores exits 1, naming it", async () => {
    const worse = join(dir, "baseline.json");
    await writeFile(worse, JSON.stringify({ cases: [{ caseId: "raspberry-pi-3-price", supportRate: 1, numberFaithfulness: 1, citationValidity: 1 }, { caseId: "gone", supportRate: 1, numberFaithfulness: 1, citationValidity: 1 }] }));
    const { code, lines } = await run([join(dir, "suite"), "--baseline", worse, ...store()], env);
    assert.equal(code, 1);
    assert.match(lines.join("\n"), /accuracy dropped:\n {2}gone \(delegating\): in the baseline but not scored now/);
    assert.equal(lines.at(-1), "1 passed, 0 failed");
  });

  test("a baseline that is not a result exits 2, naming the path", async () => {
    const bad = join(dir, "bad.json");
    await writeFile(bad, JSON.stringify({ cases: [{ caseId: "x" }] }));
    const err: string[] = [];
    const original = console.error;
    console.error = (m: string) => err.push(m);
    try {
      assert.equal((await run([join(dir, "suite"), "--baseline", bad, ...store()], env)).code, 2);
    } finally {
      console.error = original;
    }
    assert.match(err.join("\n"), /invalid baseline .*bad\.json: cases\.0\.supportRate/);
  });
});
