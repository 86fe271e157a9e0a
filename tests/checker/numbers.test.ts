import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pagesNamed, statedNumbers, unsupportedNumbers, withoutPageLocators } from "../../checker/numbers.ts";

const unsupported = (answer: string, ...sources: string[]) => unsupportedNumbers(answer, sources).map((n) => n.text);

describe("numbers an answer states, against its sources", () => {
  it("reads 1,200 / 1200 / 1.2k / 1.2 thousand as one value", () => {
    for (const written of ["1,200", "1200", "1.2k", "1.2 thousand"]) {
      assert.deepEqual(unsupported(`The fund holds ${written} positions.`, "It held 1,200 securities at 31 March."), [], written);
    }
  });

  it("reads 12% as 0.12 and 0.12 as 12%, and basis points as a percentage", () => {
    assert.deepEqual(unsupported("Overlap is 12%.", "overlap weight: 0.12"), []);
    assert.deepEqual(unsupported("Overlap is 0.12 of the portfolio.", "Overlap: 12 %"), []);
    assert.deepEqual(unsupported("The fee is 45 bps.", "Ongoing charges 0.45%"), []);
    assert.deepEqual(unsupported("The fee is 0.45 percent.", "TER 45 basis points"), []);
  });

  it("accepts a figure rounded from its source, not one rounded the wrong way", () => {
    assert.deepEqual(unsupported("Overlap is 12.3%.", "overlap 12.34%"), []);
    assert.deepEqual(unsupported("Overlap is 12.4%.", "overlap 12.34%"), ["12.4%"]);
    assert.deepEqual(unsupported("Assets of $1.2bn.", "Net assets USD 1,234,567,000"), []);
  });

  it("flags an invented number and names it as written", () => {
    assert.deepEqual(unsupported("The TER is 0.38% and the fund holds 212 stocks.", "TER 0.38%. Number of holdings: 211"), ["212"]);
  });

  it("does not read citation markers or bracketed references as figures", () => {
    assert.deepEqual(statedNumbers("Fees are 0.38% [[corpus:adiv-prospectus#p12]] [3]").map((n) => n.text), ["0.38%"]);
  });

  it("does not read URLs as figures, nor page locators once blanked: they say where, not how much", () => {
    assert.deepEqual(statedNumbers("Supply rose 3% (source: https://news.test/2026-11-29/usdc-v2.html).").map((n) => n.text), ["3%"]);
    assert.deepEqual(statedNumbers(withoutPageLocators("The prospectus discloses on page 2 and pages 3-4 (p. 12): 1.5% a year")).map((n) => n.text), ["1.5%"]);
  });

  it("does not read hashes or ids as figures", () => {
    assert.deepEqual(statedNumbers("Published as artifact art-5256ab01c9 (sha256 0e6f9a1b2c3d4e5f); 212 rows").map((n) => n.text), ["212"]);
  });

  it("lists the pages a text names", () => {
    assert.deepEqual(pagesNamed("on page 2, pages 3-4 and pp. 7, 9; p. 12"), [2, 3, 4, 7, 9, 12]);
  });

  it("keeps offsets into the original text", () => {
    const text = "See [1]: 4.5m units";
    const [n] = statedNumbers(text);
    assert.equal(text.slice(n.offset, n.offset + n.text.length), "4.5m");
    assert.deepEqual(n.values, [4_500_000]);
  });
});
