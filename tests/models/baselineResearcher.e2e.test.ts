import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { intentOf } from "../../events/index.ts";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { openStore } from "../../events/openStore.ts";
import { claimsOfEvents } from "../../projections/claimChains.ts";
import { sharedCorpusDir } from "../support/sharedCorpusDir.ts";
import { ENGINES, type TestDatabase, openTestDatabase } from "../support/testDatabase.ts";

const QUESTION = "What does the Raspberry Pi 3 cost, and what CPU does it have?";

for (const engine of ENGINES) {
  describe(`ariadne run --model baseline: the baseline researcher answers a question from corpus pages on loopback, no wire server (${engine})`, () => {
    let dir: string;
    let db: TestDatabase | undefined;
    let env: Record<string, string>;
    let dataDir: string[];
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "ariadne-baseline-run-"));
      // PostgreSQL: the test's own database; PGlite: the CLI's embedded store in a folder of the test's.
      db = engine === "postgres" ? await openTestDatabase(engine) : undefined;
      env = { ARIADNE_CORPUS_DIR: sharedCorpusDir(), ARIADNE_WORKSPACES: join(dir, "ws"), ...(db?.url ? { DATABASE_URL: db.url } : {}) };
      dataDir = db?.url ? [] : ["--data-dir", join(dir, "data")];
    });
    after(async () => {
      await db?.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    test("the answer states the price the pages state, labelled scripted; every observed claim's quote stands in a blob web_fetch or document_read stored", async () => {
      const lines: string[] = [];
      const code = await main(["run", QUESTION, "--model", "baseline", "--json", ...dataDir], (l) => lines.push(l), readConfig(env));
      const result = JSON.parse(lines.at(-1)!);
      assert.equal(code, 0, lines.join("\n"));
      assert.deepEqual([result.scripted, result.outcome, result.check?.verdict], [true, "answer", "supported"], JSON.stringify(result.check));
      assert.match(result.answer.summary, /^\(scripted baseline researcher\) .*\$35/);

      const { store, database, close } = await openStore({ url: db?.url, dataDir: dataDir[1] });
      try {
        const events = await store.readRun(result.runId);
        const turns = events.filter((e) => e.type === "turn").map((e) => e.data as { scripted: boolean; model: string });
        assert.ok(turns.length >= 4 && turns.every((t) => t.scripted), "every turn is scripted");
        assert.ok(turns.some((t) => t.model === "scripted:baseline-researcher"));
        const searched = events.flatMap((e) => intentOf(e)?.tool ?? []);
        assert.ok(searched.includes("web_search") && searched.includes("web_fetch"), searched.join(", "));

        const observed = claimsOfEvents(result.runId, events).claims.filter((c) => c.basis === "observed");
        assert.ok(observed.length >= 2, "one observed claim or more per facet");
        const blobs = createDatabaseBlobStore(database.db);
        for (const claim of observed) {
          assert.ok(claim.findings.length > 0, claim.id);
          for (const f of claim.findings) {
            assert.ok(f.quotes.length > 0, `${claim.id}: quotes`);
            for (const q of f.quotes) {
              assert.ok(q.call && ["web_fetch", "document_read"].includes(q.call.tool), `${claim.id}: quoted from ${q.call?.tool}`);
              assert.ok(q.source?.kind === "source" && /^https:\/\/(pages|docs|data)\.corpus\.test\/|^blob:/.test(q.source.url), `${claim.id}: ${JSON.stringify(q.source)}`);
              const stored = await blobs.get(q.blob!.sha256);
              assert.ok(stored, `${claim.id}: blob ${q.blob!.sha256} stored`);
              const text = [...new TextDecoder().decode(stored)];
              assert.equal(text.slice(q.blob!.charStart, q.blob!.charEnd).join(""), q.text, `${claim.id}: the quote at its offsets`);
            }
          }
        }
      } finally {
        await close();
      }
    });
  });
}
