import { test } from "node:test";
import assert from "node:assert/strict";
import { packagesLoadedBy } from "../support/importGraph.ts";

const ROOT = new URL("../../", import.meta.url);

/**
 * Commands that read the log load the store and no more: the HTML and PDF
 * readers, the search index, the model SDK and the HTTP app are imported
 * where they are used (a tool that reads a page, a model call, `serve`). Each
 * is a few hundred modules, a second of CPU at every start of `status`,
 * `verify` or `show`.
 */
const LOADED_ON_USE = ["linkedom", "@mozilla/readability", "unpdf", "minisearch", "@anthropic-ai/sdk", "hono", "@hono/zod-openapi", "@hono/node-server", "@electric-sql/pglite"];

for (const entry of ["cli/start.ts", "cli/main.ts", "cli/statusCommand.ts", "cli/verifyCommand.ts", "cli/showRun.ts", "cli/showTranscript.ts", "cli/submitCommand.ts", "cli/cancelCommand.ts", "cli/reportCommand.ts", "cli/auditCommand.ts", "cli/keys.ts", "cli/workerCommand.ts", "cli/runResearch.ts"]) {
  test(`${entry} loads none of the packages imported on use`, () => {
    const loaded = packagesLoadedBy(ROOT, entry);
    const early = LOADED_ON_USE.filter((p) => loaded.has(p)).map((p) => `${p} via ${loaded.get(p)!.join(" > ")}`);
    assert.deepEqual(early, []);
  });
}

test("the check finds a package a command does load", () => {
  // So an empty answer above means "not loaded", not "the walk found nothing".
  const loaded = packagesLoadedBy(ROOT, "cli/statusCommand.ts");
  assert.ok(loaded.has("kysely"), [...loaded.keys()].join(", "));
  assert.ok(packagesLoadedBy(ROOT, "cli/serve.ts").has("hono"));
});
