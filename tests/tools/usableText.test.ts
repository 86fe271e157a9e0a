import assert from "node:assert/strict";
import { test } from "node:test";
import { textUsability } from "../../tools/documents/usableText.ts";

test("a page's text is usable when at least half its visible characters are letters or digits and few are undecodable", () => {
  assert.equal(textUsability("The fund's ongoing charge is 0.29% a year.").usable, true);
  assert.equal(textUsability("2024 1,203.5 4.25%\n2025 1,310.0 5.10%").usable, true, "a table of figures");
  assert.equal(textUsability("1 Introduction . . . . . . . . . . . . . . . . . . . . 1").usable, true, "dot leaders are collapsed");
  assert.equal(textUsability('!"#$%&\'*+,-/:;<=>?@[]^_{|}~ a').usable, false, "glyph noise");
  const replaced = textUsability(`Fund report \ufffd\ufffd\ufffd\ufffd text`);
  assert.equal(replaced.usable, false, "undecodable glyphs (U+FFFD)");
  assert.ok(replaced.undecodableShare > 0.1);
  assert.equal(textUsability("\ue000\ue001\ue002\ue003 ab").usable, false, "private-use code points are not letters");
  assert.equal(textUsability("").usable, true, "an empty page is reported as no text layer, apart");
});
