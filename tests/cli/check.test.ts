import { after, before, describe as describeEverywhere, test } from "node:test";
import { dealt } from "../support/testShare.ts";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecordedEvent } from "../../events/index.ts";
import { openStore } from "../../events/openStore.ts";
import { STACK_LINE, type CliStore, ariadne, cliStore } from "./ariadneProcess.ts";
import { executorStreamId } from "../../events/index.ts";

// One recorded run read several ways: on one Node line of `npm test`, the second (tests/support/testShare.ts).
const describe = dealt(describeEverywhere, 1);

describe("ariadne check RUN [--out FILE] [--json]", () => {
  let store: CliStore;
  let runId: string;
  let dir: string;
  let runCheck: { verdict: string; eventId: string; flagged: string[] } | null;
  before(async () => {
    store = await cliStore("check");
    dir = await mkdtemp(join(tmpdir(), "ariadne-check-cli-"));
    const run = await ariadne(["run", "--json", ...store.args], store.env);
    assert.equal(run.code, 0, run.stderr);
    runId = JSON.parse(run.stdout).runId;
    runCheck = JSON.parse(run.stdout).check;
  });
  after(async () => {
    await store?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  test("ariadne run prints its host's check: supported, nothing flagged", () => {
    assert.equal(runCheck?.verdict, "supported", JSON.stringify(runCheck));
    assert.deepEqual(runCheck?.flagged, []);
  });

  test("the run was checked by its host; check again: supported, exit 0, check-report.md written", async () => {
    const report = join(dir, "report.md");
    const check = await ariadne(["check", runId, "--out", report, ...store.args], store.env);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`^run ${runId}: supported · \\d+ claims: \\d+ supported, 0 flagged, \\d+ without evidence · 0 advice sentences · \\d+ sources read again`));
    const text = await readFile(report, "utf8");
    assert.match(text, /^# Check report: run /);
    assert.match(text, /Verdict: \*\*supported\*\*/);
    assert.match(text, /\| c1 \(Fees\): .* \| observed \| supported \|/);
    assert.match(text, /\| https:\/\/etf\.corpus\.test\/adiv-fee-announcement\/ \| web_page \| unchanged \|/);
    const { store: log, close } = await openStore(store.open);
    try {
      const checks = (await log.readRun(runId)).filter((e) => e.type === "check_completed");
      assert.equal(checks.length, 2, "the host's check, then this one");
    } finally {
      await close();
    }
    const verify = await ariadne(["verify", runId, ...store.args], store.env);
    // No public key here: the structure is intact, its authenticity not checked (exit 4).
    assert.equal(verify.code, 4, verify.stdout + verify.stderr);
  });

  test("an exported bundle holds the same check-report.md, derived from the check_completed event, and verifies", async () => {
    const written = join(dir, "latest.md");
    assert.equal((await ariadne(["check", runId, "--out", written, ...store.args], store.env)).code, 0);
    const keys = join(dir, "keys");
    assert.equal((await ariadne(["keys", "signing", "create", "--out", keys])).code, 0);
    const bundle = join(dir, "bundle");
    const env = { ...store.env, ARIADNE_SIGNING_KEY: join(keys, "seal.key") };
    const exported = await ariadne(["export", runId, bundle, ...store.args], env);
    assert.equal(exported.code, 0, exported.stdout + exported.stderr);
    assert.equal(await readFile(join(bundle, "check-report.md"), "utf8"), await readFile(written, "utf8"));
    const verify = await ariadne(["verify", bundle, "--key", join(keys, "seal.pub")]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });

  test("bad usage is one line, exit 2; a run with no events, exit 1", async () => {
    const none = await ariadne(["check", ...store.args], store.env);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^ariadne: check takes exactly one run id/);
    const help = await ariadne(["check", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: ariadne check RUN/);
    const missing = await ariadne(["check", "no-such-run", "--out", join(dir, "x.md"), ...store.args], store.env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^ariadne: run no-such-run has no events in this store/);
    assert.doesNotMatch(missing.stderr, STACK_LINE);
  });

  // Last: it appends an altered answer to Main's stream (through the store's append, as a forger with write access could).
  test("an answer with an invented number and advice: flagged, exit 1, named in the report", async () => {
    const { store: log, close } = await openStore(store.open);
    try {
      const events = await log.readRun(runId);
      const settled = events.find((e): e is RecordedEvent<"settled"> => e.type === "settled" && !!e.data.answer)!;
      const answer = structuredClone(settled.data.answer) as { summary: string; sections: { claims: { text: string }[] }[] };
      answer.summary = `${answer.summary} Buy ADIV now.`;
      answer.sections[0].claims[0].text += " The fund holds 9,871 stocks.";
      const stream = executorStreamId(settled.metadata.executorId);
      await log.append(stream, await log.streamVersion(stream), [{ type: "settled", data: { outcome: "answered", answer }, metadata: settled.metadata }]);
    } finally {
      await close();
    }
    const report = join(dir, "flagged.md");
    const check = await ariadne(["check", runId, "--out", report, "--json", ...store.args], store.env);
    assert.equal(check.code, 1, check.stderr);
    const body = JSON.parse(check.stdout);
    assert.equal(body.verdict, "flagged");
    assert.deepEqual(body.claims[0].unsupportedNumbers, ["9,871"]);
    assert.deepEqual(body.advice.map((a: { where: string }) => a.where), ["summary"]);
    const text = await readFile(report, "utf8");
    assert.match(text, /\| c1 \(Fees\): .* \| observed \| \*\*FLAGGED\*\* \| .* \| 9,871 \|/);
    assert.match(text, /- summary \(.*\): "Buy ADIV now\."/);
  });
});
