import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { adviceIn, adviceRule, sentencesOf } from "../../checker/adviceLanguage.ts";

/**
 * The labelled corpus: recommendations, price targets, ratings and position advice against factual sentences that
 * talk about buying, selling, targets and positions without advising. It was written beside the rules, so the
 * accuracy printed is on the sentences the rules were made for; a sentence that fools them belongs in it.
 */
const corpus = JSON.parse(readFileSync(new URL("./adviceSentences.json", import.meta.url), "utf8")) as { sentence: string; advice: boolean }[];

describe("advice language", () => {
  it("classifies its labelled corpus (>= 60 sentences) with >= 95% accuracy", () => {
    assert.ok(corpus.length >= 60, `${corpus.length} sentences`);
    const wrong = corpus.filter((c) => (adviceRule(c.sentence) !== null) !== c.advice);
    const accuracy = 1 - wrong.length / corpus.length;
    const advice = corpus.filter((c) => c.advice).length;
    console.log(
      `advice classifier: ${((accuracy * 100).toFixed(1))}% accurate on ${corpus.length} labelled sentences (${advice} advice, ${corpus.length - advice} not)` +
        (wrong.length ? `; wrong: ${wrong.map((w) => JSON.stringify(w.sentence)).join(", ")}` : ""),
    );
    assert.ok(accuracy >= 0.95, `accuracy ${accuracy}`);
  });

  it("names the rule that fired and where the sentence is", () => {
    const answer = "ADIV charges 0.45% a year. Our price target is $34.\n- Investors should overweight Asia.";
    assert.deepEqual(
      adviceIn(answer).map((a) => [a.rule, answer.slice(a.offset, a.offset + a.sentence.length)]),
      [
        ["price target", "Our price target is $34."],
        ["should act", "- Investors should overweight Asia."],
      ],
    );
  });

  it("splits sentences at a full stop before a space, not inside 0.45%", () => {
    assert.deepEqual(
      sentencesOf("Fees are 0.45%. They rose.\nNext line").map((s) => s.sentence),
      ["Fees are 0.45%.", "They rose.", "Next line"],
    );
  });
});
