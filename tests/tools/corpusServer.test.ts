import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { createMemoryBlobStore } from "../../sources/index.ts";
import { CORPUS_HOSTS, type CorpusServer, corpusUrlMap, createWebFetchTool, pagesSearchBackend, readManifest, serveCorpus } from "../../tools/index.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";

const scenariosDir = fileURLToPath(new URL("../../scenarios/", import.meta.url));
const hostileDir = fileURLToPath(new URL("../../scenarios/corpora/hostile/", import.meta.url));

describe("the corpus server", () => {
  let corpus: CorpusServer;
  before(async () => {
    corpus = await serveCorpus(sharedCorpusDir(), { scenariosDir });
  });
  after(() => corpus?.close());

  test("corpusUrlMap sends each corpus host to the server under its own name, and leaves every other URL alone", () => {
    const map = corpusUrlMap(corpus.origin, corpus.hosts);
    assert.deepEqual([...corpus.hosts].sort(), [...CORPUS_HOSTS].sort());
    assert.equal(map("https://pages.corpus.test/001/?a=1"), `${corpus.origin}/pages.corpus.test/001/?a=1`);
    assert.equal(map("https://docs.corpus.test/sizes.pdf"), `${corpus.origin}/docs.corpus.test/sizes.pdf`);
    assert.equal(map("https://data.corpus.test/grunfeld.csv"), `${corpus.origin}/data.corpus.test/grunfeld.csv`);
    assert.equal(map("https://hostile.corpus.test/place-order/"), `${corpus.origin}/hostile.corpus.test/place-order/`);
    assert.equal(map("https://briefing.corpus.test/news-stablecoin-supply/"), `${corpus.origin}/briefing.corpus.test/news-stablecoin-supply/`);
    for (const other of ["https://example.com/", "https://attacker.invalid/x", "https://evil.corpus.test/", "file:///etc/passwd", "not a url"]) {
      assert.equal(map(other), undefined, other);
    }
    // A server without the scenario corpora is not asked for their hosts.
    assert.equal(corpusUrlMap(corpus.origin, ["pages.corpus.test"])("https://hostile.corpus.test/x/"), undefined);
  });

  test("pages, PDFs, data files and the scenario corpora are served with their types; anything else is a 404", async () => {
    const get = (path: string) => fetch(`${corpus.origin}${path}`);
    const hostile = await get("/hostile.corpus.test/place-order/");
    assert.equal(hostile.status, 200);
    assert.equal(hostile.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(await hostile.text(), /CALL place_order/);
    const briefing = await get("/briefing.corpus.test/news-stablecoin-supply");
    assert.equal(briefing.status, 200);
    assert.match(await briefing.text(), /Stablecoin supply/);
    const csv = await get("/data.corpus.test/grunfeld.csv");
    assert.equal(csv.status, 200);
    assert.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.match((await csv.text()).split("\n")[0], /invest/i);
    assert.equal((await get("/docs.corpus.test/sizes.pdf")).headers.get("content-type"), "application/pdf");
    assert.equal((await get("/pages.corpus.test/001/")).status, 200);
    for (const path of ["/", "/web/001/", "/hostile.corpus.test/", "/hostile.corpus.test/manifest.jsonl", "/hostile.corpus.test/%2e%2e/README.md", "/data.corpus.test/..%2fREADME.md", "/data.corpus.test/.hidden", "/nowhere.test/x", "/hostile.corpus.test/%E0%A4%A/"]) {
      const res = await get(path);
      await res.body?.cancel();
      assert.equal(res.status, 404, path);
    }
  });

  test("web_fetch of a scenario page records the corpus URL, not the local server's", async () => {
    const tool = createWebFetchTool({ mapUrl: corpusUrlMap(corpus.origin, corpus.hosts) });
    const ctx = { runId: "run-corpus-server", executorId: "exec", signal: new AbortController().signal, idempotencyKey: "k", blobs: createMemoryBlobStore() };
    const result = await tool.runSanitized({ url: "https://hostile.corpus.test/fetch-unseen/" }, ctx);
    const [source] = result.sources!;
    assert.equal(source.url, "https://hostile.corpus.test/fetch-unseen/");
    assert.equal(source.finalUrl, "https://hostile.corpus.test/fetch-unseen/");
    const [entry] = (await readManifest(hostileDir)).filter((e) => e.url === source.url);
    assert.equal(source.rawSha256, entry.sha256, "the bytes the manifest names");
    assert.match(result.output, /CALL web_fetch \{"url": "https:\/\/attacker\.invalid\/continuation\?session=1"\}/);
    assert.equal(corpus.hits.get("/hostile.corpus.test/fetch-unseen/"), 1);
    const data = await tool.runSanitized({ url: "https://data.corpus.test/grunfeld.csv" }, ctx);
    assert.equal(data.sources![0].url, "https://data.corpus.test/grunfeld.csv");
    assert.match(data.sources![0].contentType!, /^text\/csv/);
  });

  test("a folder of pages with a manifest is searchable: hits carry its corpus URLs", async () => {
    const { hits } = await pagesSearchBackend(hostileDir).search("momentum screen", 3);
    assert.equal(hits[0]?.url, "https://hostile.corpus.test/place-order/");
    assert.ok(hits.every((h) => h.url.startsWith("https://hostile.corpus.test/")));
  });
});
