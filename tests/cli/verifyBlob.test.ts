import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openStore } from "../../events/openStore.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { PROSPECTUS_URL } from "../../scenarios/etfOverlap/corpusUrls.ts";
import { type CliStore, ariadne, cliStore, lines } from "./ariadneProcess.ts";

describe("ariadne verify RUN names a source blob whose bytes were changed", () => {
  let store: CliStore;
  let runId: string;
  let pdf: string;

  before(async () => {
    // The offline demo stores what its Children fetched: pages, the prospectus PDF, the CSV files.
    store = await cliStore("verifyblob");
    const run = await ariadne(["run", "--json", ...store.args], store.env);
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;
    const intact = await ariadne(["verify", runId, ...store.args], store.env);
    // No public key here: the structure is intact, its authenticity not checked (exit 4).
    assert.equal(intact.code, 4, intact.stdout + intact.stderr);

    // Change the PDF's stored bytes behind the store's back (its write-once trigger off, as only an owner can).
    const { store: log, database, close } = await openStore(store.open);
    try {
      const fetched = (await log.readRun(runId)).find(
        (e): e is RecordedEvent<"tool_completed"> => e.type === "tool_completed" && e.data.tool === "web_fetch" && e.data.sources[0]?.url === PROSPECTUS_URL,
      );
      assert.ok(fetched, "the prospectus PDF was fetched");
      pdf = fetched.data.sources[0]!.rawSha256;
      await database.db.transaction().execute(async (trx) => {
        await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
        await sql`UPDATE ariadne_source_blobs SET bytes = overlay(bytes placing '\\x00'::bytea from 100 for 1) WHERE sha256 = ${pdf}`.execute(trx);
        await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
      });
    } finally {
      await close();
    }
  });
  after(() => store?.dispose());

  test("verify exits 1 and its one line names the blob, what it held and that it was changed", async () => {
    const { code, stdout, stderr } = await ariadne(["verify", runId, ...store.args], store.env);
    assert.equal(code, 1, stdout + stderr);
    assert.equal(lines(stdout).length, 1, stdout);
    assert.match(stdout, new RegExp(`^run ${runId}: NOT intact: executor-\\S+ v\\d+ .*blob ${pdf} \\(the raw bytes of source ${PROSPECTUS_URL.replace(/\./g, "\\.")}\\) was changed: its stored bytes no longer hash to ${pdf}`));
  });

  test("verify --json lists the blob as the first problem", async () => {
    const { code, stdout } = await ariadne(["verify", runId, "--json", ...store.args], store.env);
    assert.equal(code, 1);
    const report = JSON.parse(stdout);
    assert.equal(report.ok, false);
    assert.match(report.firstBad.reason, new RegExp(`^blob ${pdf} .* was changed`));
  });
});
