import assert from "node:assert/strict";
import { test } from "node:test";
import { parseProfileFile, ProfileFormatError } from "../../profiles/index.ts";

const header = (lines: string[]) => `---\n${lines.join("\n")}\n---\n# Method\nDo the work.\n`;
const FULL = ["id: demo", "version: 2", "title: Demo", "requested_tools: [read_document, quote_passage]", "summary: A demo."];

test("a complete header parses into fields and method text", () => {
  const { header: h, body } = parseProfileFile("demo.md", header(FULL));
  assert.deepEqual(h, {
    id: "demo",
    version: "2",
    title: "Demo",
    requestedTools: ["read_document", "quote_passage"],
    summary: "A demo.",
  });
  assert.equal(body, "# Method\nDo the work.");
});

test("an empty tool list is a request for nothing specific", () => {
  const { header: h } = parseProfileFile("demo.md", header(FULL.map((l) => (l.startsWith("requested_tools") ? "requested_tools: []" : l))));
  assert.deepEqual(h.requestedTools, []);
});

test("a missing field is named, together with the file", () => {
  assert.throws(
    () => parseProfileFile("profiles/demo.md", header(FULL.filter((l) => !l.startsWith("summary")))),
    (e: unknown) => e instanceof ProfileFormatError && /profiles\/demo\.md: missing header field "summary"/.test(e.message),
  );
});

test("strictness: unknown, repeated and blank fields, unbracketed lists and missing fences are errors", () => {
  const cases: [string, RegExp][] = [
    [header([...FULL, "author: someone"]), /unknown header field "author"/],
    [header([...FULL, "title: Again"]), /"title" appears twice/],
    [header(FULL.map((l) => (l.startsWith("title") ? "title:" : l))), /"title" is blank/],
    [header(FULL.map((l) => (l.startsWith("requested_tools") ? "requested_tools: read_document" : l))), /bracketed list/],
    [header(FULL.map((l) => (l.startsWith("version") ? "version: latest" : l))), /"version"/],
    ["# no header\n", /must start with a "---"/],
    [`---\n${FULL.join("\n")}\n# never closed\n`, /not closed/],
    [`---\n${FULL.join("\n")}\n---\n\n`, /no method text/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseProfileFile("demo.md", text), (e: unknown) => e instanceof ProfileFormatError && message.test(e.message));
  }
});
