import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { anchorsOf, brokenLinks, docFiles, slugOf, unreachablePages } from "./markdownLinks.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

test("README.md and every docs page: no relative link to a missing file, no #anchor to a missing heading", () => {
  const files = docFiles(ROOT);
  assert.ok(files.includes("README.md") && files.includes("docs/README.md") && files.length > 20, files.join(", "));
  assert.deepEqual(brokenLinks(ROOT), []);
});

test("every docs page is reachable from docs/README.md", () => {
  assert.deepEqual(unreachablePages(ROOT), []);
});

test("the README stays at most 15 KB", () => {
  const bytes = Buffer.byteLength(readFileSync(join(ROOT, "README.md")));
  assert.ok(bytes <= 15 * 1024, `README.md is ${bytes} bytes`);
});

test("anchors follow GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, repeats numbered", () => {
  assert.equal(slugOf("Runs: submit, workers, resume, status, cancel, interrupt"), "runs-submit-workers-resume-status-cancel-interrupt");
  assert.equal(slugOf("`--json` and errors"), "--json-and-errors");
  assert.equal(slugOf("What `ariadne run` prints"), "what-ariadne-run-prints");
  assert.equal(slugOf("2026-12-05: where the aims stand"), "2026-12-05-where-the-aims-stand");
  assert.equal(slugOf("Capacity (2026-12-01 to 2026-12-04)"), "capacity-2026-12-01-to-2026-12-04");
  assert.equal(slugOf("A [linked](x.md) *heading*"), "a-linked-heading");
  assert.deepEqual([...anchorsOf("# A\n\n## A\n\n```\n# not a heading\n```\n\n### A\n")], ["a", "a-1", "a-2"]);
});

test("a seeded broken link, a missing anchor and an unlinked page are each caught", () => {
  const copy = mkdtempSync(join(tmpdir(), "ariadne-doclinks-"));
  try {
    // The pages copied, to be seeded; the rest of the repository linked, so links into the code resolve as they do here.
    cpSync(join(ROOT, "docs"), join(copy, "docs"), { recursive: true });
    for (const f of ["README.md", "CHANGELOG.md"]) cpSync(join(ROOT, f), join(copy, f));
    for (const entry of readdirSync(ROOT)) if (!existsSync(join(copy, entry))) symlinkSync(join(ROOT, entry), join(copy, entry));
    assert.deepEqual(brokenLinks(copy), [], "the copy is clean before the seeding");
    const page = join(copy, "docs/getting-started.md");
    writeFileSync(
      page,
      `${readFileSync(page, "utf8")}\nSee [gone](guides/no-such-page.md), [no anchor](concepts/event-log.md#no-such-heading) and [here](#nowhere).\n\`[in code](ignored.md)\`\n`,
    );
    writeFileSync(join(copy, "docs/orphan.md"), "# Orphan\n");
    const problems = brokenLinks(copy);
    assert.equal(problems.length, 3, problems.join("\n"));
    assert.match(problems[0]!, /^docs\/getting-started\.md:\d+: guides\/no-such-page\.md: docs\/guides\/no-such-page\.md does not exist$/);
    assert.match(problems[1]!, /concepts\/event-log\.md#no-such-heading: docs\/concepts\/event-log\.md has no heading with the anchor #no-such-heading$/);
    assert.match(problems[2]!, /#nowhere: docs\/getting-started\.md has no heading with the anchor #nowhere$/);
    assert.deepEqual(unreachablePages(copy), ["docs/orphan.md"]);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
