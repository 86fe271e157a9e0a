import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { gradeAnswer, normalizeText, numbersIn } from "../../eval/gold/gradeAnswer.ts";
import { loadGoldSuite } from "../../eval/gold/loadGoldSuite.ts";

describe("gradeAnswer: an answer against a gold answer", () => {
  test("a number within tolerance, read as written ($35, 1,016,315, 0.29%)", () => {
    assert.deepEqual(numbersIn("It costs $35; the file is 1,016,315 bytes and the charge 0.29%, down -0.5."), [35, 1016315, 0.29, -0.5]);
    assert.equal(gradeAnswer({ answer: 35, answer_type: "number", tolerance: 0 }, "The Raspberry Pi 3 costs $35.").correct, true);
    assert.equal(gradeAnswer({ answer: 35, answer_type: "number", tolerance: 0 }, "The Raspberry Pi 3 costs $36.").correct, false);
    assert.equal(gradeAnswer({ answer: 4.48, answer_type: "number", tolerance: 0.01 }, "about 4.49 billion").correct, true);
    assert.equal(gradeAnswer({ answer: 4.48, answer_type: "number", tolerance: 0.001 }, "about 4.49 billion").correct, false);
  });

  test("text normalised (case, diacritics, quotes, punctuation, articles) and matched as whole words", () => {
    assert.equal(normalizeText("The  Café’s “Menu”!"), " cafe menu ");
    assert.equal(gradeAnswer({ answer: "Cortex-A53", answer_type: "text", tolerance: 0 }, "an ARM cortex-a53 CPU").correct, true);
    assert.equal(gradeAnswer({ answer: "Verizon", answer_type: "text", tolerance: 0 }, "sold to Verizons").correct, false);
  });

  test("a set needs every item in any order; a list every item in the gold order", () => {
    const set = { answer: ["US Steel", "General Motors"], answer_type: "set" as const, tolerance: 0 };
    assert.equal(gradeAnswer(set, "General Motors and US Steel").correct, true);
    assert.deepEqual(gradeAnswer(set, "General Motors only"), { correct: false, detail: 'lacks "US Steel"' });
    const list = { ...set, answer_type: "list" as const };
    assert.equal(gradeAnswer(list, "first US Steel, then General Motors").correct, true);
    assert.deepEqual(gradeAnswer(list, "General Motors, then US Steel"), { correct: false, detail: "every item, out of order" });
  });
});

describe("a gold suite file: one JSON case a line, every line checked first", () => {
  let dir: string;
  const good = (over: Record<string, unknown> = {}) => JSON.stringify({ id: "c1", question: "What does it cost?", answer: 35, answer_type: "number", tolerance: 0, evidence: ["https://pages.corpus.test/x/"], corpus: "corpus", ...over });
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "ariadne-gold-"));
    await mkdir(join(dir, "corpus", "web"), { recursive: true });
    await writeFile(join(dir, "corpus", "web", "manifest.jsonl"), "");
    await mkdir(join(dir, "bare"));
  });
  after(() => rm(dir, { recursive: true, force: true }));
  const suite = async (name: string, lines: string[]) => {
    const file = join(dir, name);
    await writeFile(file, lines.join("\n") + "\n");
    return file;
  };

  test("a good file loads, the corpus resolved beside it and the tolerance defaulted", async () => {
    const [c] = await loadGoldSuite(await suite("good.jsonl", ["// a comment", good({ tolerance: undefined })]));
    assert.deepEqual([c!.id, c!.line, c!.tolerance, c!.corpusDir], ["c1", 2, 0, join(dir, "corpus")]);
  });

  for (const [what, line, message] of [
    ["not JSON", "{oops", /line 2: \(root\): not JSON/],
    ["an unknown answer_type", good({ id: "c2", answer_type: "date" }), /line 2: answer_type: /],
    ["a number answer given as text", good({ id: "c2", answer: "35" }), /line 2: answer: an answer of type number is a number/],
    ["evidence that is not a URL", good({ id: "c2", evidence: ["the page"] }), /line 2: evidence\.0: /],
    ["a misspelt field", good({ id: "c2", answer_typ: "number" }), /line 2: \(root\): Unrecognized key: "answer_typ"/],
    ["a repeated id", good(), /line 2: id: "c1" is already the id of line 1/],
    ["a corpus folder without the corpus layout", good({ id: "c2", corpus: "bare" }), /line 2: corpus: .*bare has no web\/manifest\.jsonl, pdf\/manifest\.jsonl or data\//],
  ] as const) {
    test(`a bad line is refused naming the line and the field: ${what}; ariadne eval exits 2 before any store is opened`, async () => {
      const file = await suite("bad.jsonl", [good(), line]);
      await assert.rejects(loadGoldSuite(file), message);
      const code = await main(["eval", "--suite", file, "--data-dir", "/nonexistent/never-created"], () => {}, readConfig({}));
      assert.equal(code, 2);
    });
  }

  test("--lane live without a configured model, and lanes a suite file cannot run, exit 2", async () => {
    const file = await suite("one.jsonl", [good()]);
    for (const argv of [["--lane", "live"], ["--lane", "replay"], ["--lane", "scripted"], ["--record"], ["extra-folder"]]) {
      assert.equal(await main(["eval", "--suite", file, ...argv, "--data-dir", "/nonexistent/never-created"], () => {}, readConfig({})), 2, argv.join(" "));
    }
    assert.equal(await main(["eval", "--lane", "baseline", "--data-dir", "/nonexistent/never-created"], () => {}, readConfig({})), 2);
  });
});
