import { test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../cli/main.ts";
import { corpusDir } from "../support/corpus.ts";

async function ariadne(...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line));
  return { code, lines };
}

test("ariadne tools list names the tools a real run gets, with their effect class, and no demo corpus tool", async () => {
  const { code, lines } = await ariadne("tools", "list");
  assert.equal(code, 0);
  for (const name of ["web_search", "web_fetch", "document_read"]) assert.ok(lines.some((l) => l.startsWith(name) && l.includes("read_only")), name);
  for (const name of ["search_corpus", "read_document", "quote_passage", "compute_overlap"]) assert.ok(!lines.some((l) => l.startsWith(`${name} `)), name);
  const json = await ariadne("tools", "list", "--json");
  assert.ok((JSON.parse(json.lines[0]) as { name: string; input_schema: unknown }[]).some((t) => t.name === "web_fetch" && t.input_schema));
});

test("ariadne tools run web_fetch over the corpus prints the page as the model sees it and the source it recorded", async () => {
  const { code, lines } = await ariadne("tools", "run", "web_fetch", "--input", '{"url": "https://pages.corpus.test/wikipedia/"}', "--corpus", corpusDir());
  assert.equal(code, 0);
  const text = lines.join("\n");
  assert.match(text, /<untrusted_source url="https:\/\/pages\.corpus\.test\/wikipedia\/"/);
  assert.match(text, /\| Founded \| February 28, 1998; 18 years ago \|/);
  assert.match(text, /sources \(1\):\n {2}- web_page https:\/\/pages\.corpus\.test\/wikipedia\/ · text\/html.* raw 7104f5945907560ed185063f6e469b1150b462eceb14be092b84f8b11368cf8c/);

  // The scenario corpora are served beside it: a hostile page, recorded under its corpus URL.
  const hostile = await ariadne("tools", "run", "web_fetch", "--input", '{"url": "https://hostile.corpus.test/place-order/"}', "--corpus", corpusDir());
  assert.equal(hostile.code, 0);
  assert.match(hostile.lines.join("\n"), /CALL place_order \{"symbol": "ACME"[\s\S]*- web_page https:\/\/hostile\.corpus\.test\/place-order\/ · text\/html/);

  const json = await ariadne("tools", "run", "web_search", "--input", '{"query": "Mozilla"}', "--corpus", corpusDir(), "--json");
  const result = JSON.parse(json.lines[0]) as { ok: boolean; sources: { kind: string }[]; links: string[] };
  assert.equal(json.code, 0);
  assert.equal(result.sources[0].kind, "search_results");
  assert.ok(result.links.includes("https://pages.corpus.test/wikipedia/"));
});

test("a failing tool exits 1 with what the model would be told; bad usage exits 2", async () => {
  const refused = await ariadne("tools", "run", "web_fetch", "--input", '{"url": "http://127.0.0.1:9/"}');
  assert.equal(refused.code, 1);
  assert.match(refused.lines[0], /^web_fetch failed: Refused to fetch http:\/\/127\.0\.0\.1:9\/: .*loopback/);
  assert.equal((await ariadne("tools", "run", "web_fetch", "--input", "{not json")).code, 2);
  assert.equal((await ariadne("tools", "run", "web_fetch", "--input", '{"offset": 1}')).code, 2);
  assert.equal((await ariadne("tools", "run", "no_such_tool", "--input", "{}")).code, 2);
  const help = await ariadne("tools", "--help");
  assert.equal(help.code, 0);
  assert.match(help.lines[0], /--corpus DIR/);
});

test("compute's limits are the host's to set (ARIADNE_COMPUTE_*), held to bounds, and a run meets them", async () => {
  const { readConfig } = await import("../../cli/config.ts");
  const { hostSettings } = await import("../../cli/config.ts");
  const env = {
    ARIADNE_COMPUTE_TIME_MS: "9000",
    ARIADNE_COMPUTE_MEMORY_MB: "300",
    ARIADNE_COMPUTE_PROCESSES: "8",
    ARIADNE_COMPUTE_WORKSPACE_MB: "20",
    ARIADNE_COMPUTE_WORKSPACE_FILES: "500",
    ARIADNE_COMPUTE_TMP_MB: "17",
    ARIADNE_COMPUTE_TMP_FILES: "600",
    ARIADNE_COMPUTE_OPEN_FILES: "40",
  };
  const limits = { time_ms: 9000, memory_mb: 300, output_bytes: 20_000, processes: 8, workspace_write_mb: 20, workspace_files: 500, tmp_mb: 17, tmp_files: 600, open_files: 40 };
  assert.deepEqual(hostSettings(readConfig(env)).compute, { passEnv: {}, timeLimitMs: 9000, memoryLimitMb: 300, maxProcesses: 8, maxWorkspaceWriteMb: 20, maxWorkspaceFiles: 500, maxTmpMb: 17, maxTmpFiles: 600, maxOpenFiles: 40 });
  for (const bad of [{ ARIADNE_COMPUTE_PROCESSES: "0" }, { ARIADNE_COMPUTE_MEMORY_MB: "lots" }, { ARIADNE_COMPUTE_TIME_MS: "99999999999" }]) {
    assert.throws(() => readConfig(bad), (e: Error & { code?: string }) => e.code === "USAGE" && new RegExp(`^${Object.keys(bad)[0]} must`).test(e.message), JSON.stringify(bad));
  }
  const lines: string[] = [];
  const code = await main(["tools", "run", "compute", "--json", "--input", JSON.stringify({ language: "python", code: "import os\nwhile True:\n    os.fork()" })], (l) => lines.push(l), readConfig(env));
  assert.equal(code, 0);
  const report = JSON.parse((JSON.parse(lines[0]!) as { output: string }).output) as { limits: unknown; limits_hit: string[] };
  assert.deepEqual(report.limits, limits, "the run is held to the configured limits, and says so");
  assert.match(report.limits_hit.join("\n"), /process limit: the run reached its 8 processes/);
});
