import assert from "node:assert/strict";
import { test } from "node:test";
import { indexUnits, saidOfAnother, subjectAround, termsOf } from "../../checker/numberUnits.ts";
import { statedNumbers } from "../../checker/numbers.ts";

const TABLE = ["Asset | Active addresses | Transactions", "Bitcoin | 712,480 | 401,227", "Ethereum | 498,915 | 1,203,664"].join("\n");

/** Whether `figure` of `claim` is said of another entity than the units of `text` that state it. */
const another = (claim: string, figure: string, text: string) => {
  const numbers = statedNumbers(claim);
  const n = numbers.find((x) => x.text === figure)!;
  return saidOfAnother(n, subjectAround(claim, n, numbers), indexUnits([text]), termsOf(claim));
};

test("a figure given to another entity of the table is said of another; given to its own, it is not", () => {
  assert.equal(another("Daily metrics, Ethereum: active addresses 712,480", "712,480", TABLE), true);
  assert.equal(another("Daily metrics, Bitcoin: active addresses 712,480", "712,480", TABLE), false);
  assert.equal(another("Bitcoin had 498,915 active addresses.", "498,915", TABLE), true);
});

test("a row naming no entity, under a header that names it, is not another's (a census row of an infobox)", () => {
  const infobox = ["New Zealand Aotearoa (Māori)", "Population", "2018 census | 4,699,755", "Today the majority of New Zealand's population is of European descent."].join("\n");
  assert.equal(another("Row: New Zealand Aotearoa (Māori) • 2018 census; New Zealand Aotearoa (Māori) 4,699,755", "4,699,755", infobox), false);
});
