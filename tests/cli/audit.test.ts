import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { openStore } from "../../events/openStore.ts";
import { projectClaims } from "../../projections/index.ts";
import { type CliStore, STACK_LINE, ariadne, cliStore } from "./ariadneProcess.ts";

describe("ariadne audit RUN [CLAIM_ID]: each claim followed to the bytes behind it", () => {
  let store: CliStore;
  let runId: string;
  before(async () => {
    store = await cliStore("audit");
    const run = await ariadne(["run", "--json", ...store.args], store.env);
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;
  });
  after(() => store?.dispose());

  test("prints every claim with its finding, model turn, quotes, tool calls and sources; exit 0", async () => {
    const audit = await ariadne(["audit", runId, ...store.args], store.env);
    assert.equal(audit.code, 0, audit.stderr);
    assert.match(audit.stdout, new RegExp(`^run ${runId}: \\d+ claims in the answer`));
    assert.match(audit.stdout, /^c1 observed · Fees: /m);
    assert.match(audit.stdout, /finding 0 of child \S+ \(web-explorer v\S+ sha256 [0-9a-f]{64}\)/);
    assert.match(audit.stdout, /written by turn \d+: model \S+ \(scripted\) · request digest [0-9a-f]{64} · response id not recorded · \d+\+\d+ tokens/);
    assert.match(audit.stdout, /reminders delivered into it: /);
    assert.match(audit.stdout, /quote "ACME Fund Management today announced/);
    assert.match(audit.stdout, /at characters \d+-\d+ of text blob [0-9a-f]{64}/);
    assert.match(audit.stdout, /at characters \d+-\d+, page 3 of text blob/);
    assert.match(audit.stdout, /intent event \S+ \(executor-\S+ v\d+, position \d+, hash [0-9a-f]{64}\)/);
    assert.match(audit.stdout, /outcome tool_completed event/);
    assert.match(audit.stdout, /source web_page https:\/\/etf\.corpus\.test\/adiv-fee-announcement\/ · HTTP 200 · .* · fetched \S+ · raw sha256 [0-9a-f]{64} · text sha256 [0-9a-f]{64}/);
    assert.match(audit.stdout, /judgment · .*\n  no evidence: a judgment/);
  });

  test("one claim, as JSON", async () => {
    const audit = await ariadne(["audit", runId, "c1", "--json", ...store.args], store.env);
    assert.equal(audit.code, 0, audit.stderr);
    const body = JSON.parse(audit.stdout);
    assert.equal(body.runId, runId);
    assert.equal(body.claim.id, "c1");
    assert.equal(body.claim.findings[0].quotes[0].source.kind, "source");
  });

  test("an unknown claim is one line naming the ids there are, exit 1; a missing run id is bad usage, exit 2", async () => {
    const missing = await ariadne(["audit", runId, "c99", ...store.args], store.env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^ariadne: run \S+ has no claim c99: its claims are c1…c\d+\n$/);
    assert.doesNotMatch(missing.stderr, STACK_LINE);
    const usage = await ariadne(["audit", ...store.args], store.env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /audit takes a run id/);
    const help = await ariadne(["audit", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: ariadne audit RUN \[CLAIM_ID\]/);
  });

  // Last: it changes the store.
  test("verify: a quote whose blob no longer holds it makes the run not intact, named with the quote", async () => {
    const { store: log, database, close } = await openStore(store.open);
    let blob: string;
    try {
      const quote = (await projectClaims(log, runId)).claims[0]!.findings[0]!.quotes[0]!;
      blob = quote.blob!.sha256;
      await database.db.transaction().execute(async (trx) => {
        await sql`ALTER TABLE ariadne_source_blobs DISABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
        await sql`UPDATE ariadne_source_blobs SET bytes = convert_to(replace(convert_from(bytes, 'UTF8'), '0.29%', '0.19%'), 'UTF8') WHERE sha256 = ${blob}`.execute(trx);
        await sql`ALTER TABLE ariadne_source_blobs ENABLE TRIGGER ariadne_source_blobs_write_once`.execute(trx);
      });
    } finally {
      await close();
    }
    const { code, stdout } = await ariadne(["verify", runId, "--json", ...store.args], store.env);
    assert.equal(code, 1);
    const reasons = (JSON.parse(stdout).problems as { reason: string }[]).map((p) => p.reason);
    assert.ok(reasons.some((r) => new RegExp(`^quote findings\\[0\\]\\.evidence\\.quotes\\[0\\] of the handoff of \\S+ is not in blob ${blob}`).test(r)), reasons.join("\n"));
  });
});
