import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Answer } from "../../actors/index.ts";
import { openStore } from "../../events/openStore.ts";
import type { RecordedEvent } from "../../events/index.ts";
import { FACTSHEET_URL } from "../../scenarios/etfOverlap/corpusUrls.ts";
import { sha256Hex } from "../../sources/index.ts";
import { createDatabaseBlobStore } from "../../db/sourceBlobs.ts";
import { markdownTables } from "../../tools/demo/markdownTables.ts";
import { type CliStore, ariadne, cliStore } from "../cli/ariadneProcess.ts";

type Finding = { claim: string; evidence: { toolResults: string[]; citations: string[] } };
type Claim = Answer["sections"][number]["claims"][number];

const squash = (s: string) => s.replace(/\s+/g, " ").trim();
const numbersIn = (s: string) => s.match(/\d+(?:\.\d+)?/g) ?? [];
const quotedIn = (s: string) => [...s.matchAll(/"([^"]+)"/g)].map((m) => squash(m[1]!));

/** A tool output as text to search: a JSON output's strings and numbers, one per line; anything else as it is. */
function searchable(output: string): string {
  const leaves = (v: unknown): string[] =>
    typeof v === "string" || typeof v === "number" ? [String(v)] : v && typeof v === "object" ? Object.values(v).flatMap(leaves) : [];
  try {
    return leaves(JSON.parse(output)).join("\n");
  } catch {
    return output;
  }
}

describe("the offline demo's printed answer says only what its cited tool outputs say", () => {
  let store: CliStore;
  let answer: Answer;
  let handoffs: Record<string, { findings: Finding[] }>;
  let events: RecordedEvent[];
  /** The stored bytes of every blob the run's sources name, by sha256 (null when missing). */
  const blobs = new Map<string, Uint8Array | null>();
  /** A claim's cited tool outputs, followed citation -> handoff finding -> evidence -> tool_completed in the log. */
  let outputsOf: (claim: Claim) => { tool: string; output: string; citations: string[] }[];

  before(async () => {
    store = await cliStore("demo");
    const run = await ariadne(["run", "--json", ...store.args], store.env);
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout);
    answer = printed.answer;
    handoffs = printed.handoffs;
    const { store: log, database, close } = await openStore(store.open);
    try {
      events = await log.readRun(printed.runId);
      const stored = createDatabaseBlobStore(database.db);
      for (const e of events) {
        if (e.type !== "tool_completed") continue;
        for (const s of e.data.sources) for (const sha of [s.rawSha256, s.textSha256]) blobs.set(sha, await stored.get(sha));
      }
    } finally {
      await close();
    }
    outputsOf = (claim) =>
      claim.citations.map((cite) => {
        const finding = handoffs[cite.executor]?.findings[cite.finding];
        assert.ok(finding, `citation ${cite.executor}#${cite.finding} names no printed finding`);
        const committed = events.find((e): e is RecordedEvent<"handoff_committed"> => e.type === "handoff_committed" && e.metadata.executorId === cite.executor);
        assert.deepEqual((committed?.data.handoff.findings as Finding[])[cite.finding], finding, "the printed finding is the logged one");
        const completed = events.filter(
          (e): e is RecordedEvent<"tool_completed"> =>
            e.type === "tool_completed" && e.metadata.executorId === cite.executor && finding.evidence.toolResults.includes(e.data.toolUseId),
        );
        assert.equal(completed.length, finding.evidence.toolResults.length, "every tool result of the evidence is in the log");
        return { tool: completed.map((e) => e.data.tool).join(","), output: completed.map((e) => searchable(e.data.output)).join("\n"), citations: finding.evidence.citations };
      });
  });
  after(() => store?.dispose());

  const claims = () => answer.sections.flatMap((s) => s.claims);

  test("every number and quoted phrase of a cited claim appears in the tool output its citation points to", () => {
    const cited = claims().filter((c) => c.citations.length > 0);
    assert.ok(cited.length >= 5);
    for (const claim of cited) {
      const source = squash(outputsOf(claim).map((o) => o.output).join("\n"));
      const numbers = new Set(numbersIn(source));
      for (const n of numbersIn(claim.text)) assert.ok(numbers.has(n), `${n} is not in the cited output: ${claim.text}`);
      for (const q of quotedIn(claim.text)) assert.ok(source.includes(q), `"${q}" is not in the cited output`);
      for (const o of outputsOf(claim)) for (const marker of o.citations) assert.ok(o.output.includes(marker), `${marker} is not in the cited output`);
    }
  });

  test("a claim that cites nothing states no number and quotes nothing, and neither does the summary", () => {
    for (const text of [answer.summary, ...claims().filter((c) => c.citations.length === 0).map((c) => c.text)]) {
      assert.deepEqual(numbersIn(text), [], text);
      assert.deepEqual(quotedIn(text), [], text);
    }
  });

  test("a claim resting on a quoted passage quotes it word for word, with the footnotes its markers point to", () => {
    let quotes = 0;
    for (const claim of claims().filter((c) => c.basis === "observed")) {
      const source = squash(outputsOf(claim).map((o) => o.output).join("\n"));
      const notes = new Map([...claim.text.matchAll(/Footnote (\(\d+\)): "([^"]+)"/g)].map((m) => [m[1]!, squash(m[2]!)]));
      for (const passage of quotedIn(claim.text).filter((q) => ![...notes.values()].includes(q))) {
        quotes++;
        assert.ok(source.includes(passage), `the claim does not quote its passage word for word: ${passage}`);
        // A "(n)" marker in a quoted passage comes with its note, as the cited page prints it.
        for (const [marker] of passage.matchAll(/\(\d+\)/g)) {
          const note = notes.get(marker);
          assert.ok(note, `footnote ${marker} dropped: ${claim.text}`);
          assert.ok(source.includes(`${marker} ${note}`), `footnote ${marker} is not the cited page's note: ${note}`);
        }
      }
    }
    assert.ok(quotes >= 3, "the fee cut and both risks rest on quotes");
    assert.ok(claims().some((c) => c.text.includes("The lending agent is an affiliate of ACME Fund Management.")));
  });

  test("the fee section states every charge of the fetched factsheet's fee table with its figure: entry, exit, transaction costs", () => {
    const fees = answer.sections.find((s) => s.heading === "Fees")!;
    const factsheet = events.find((e): e is RecordedEvent<"tool_completed"> => e.type === "tool_completed" && e.data.tool === "web_fetch" && e.data.sources[0]?.url === FACTSHEET_URL);
    assert.ok(factsheet, "the factsheet was fetched");
    const table = markdownTables(factsheet.data.output).find((t) => t.header[0] === "Charge")!;
    assert.deepEqual(table.rows.map((r) => r[0]), ["Ongoing charge", "Entry charge", "Exit charge", "Portfolio transaction costs"]);
    const claim = fees.claims.find((c) => c.text.includes("Entry charge"));
    assert.ok(claim, "no fee claim states the entry charge");
    for (const [charge, amount] of table.rows) assert.ok(claim.text.includes(`${charge}: ${amount}`), `${charge} ${amount} missing: ${claim.text}`);
  });

  test("every observed claim rests on fetched sources whose bytes are stored blobs that hash to their names", () => {
    for (const claim of claims().filter((c) => c.basis === "observed")) {
      for (const cite of claim.citations) {
        const finding = handoffs[cite.executor]!.findings[cite.finding]!;
        const sources = events.flatMap((e) =>
          e.type === "tool_completed" && e.metadata.executorId === cite.executor && finding.evidence.toolResults.includes(e.data.toolUseId) ? e.data.sources : [],
        );
        assert.ok(sources.some((s) => /^https:\/\/etf(-files)?\.corpus\.test\//.test(s.url)), `no fetched page or file behind: ${claim.text}`);
        for (const s of sources) {
          for (const sha of [s.rawSha256, s.textSha256]) {
            const bytes = blobs.get(sha);
            assert.ok(bytes, `blob ${sha} of ${s.url} is not stored`);
            assert.equal(sha256Hex(bytes), sha, `blob ${sha} of ${s.url} does not hash to its name`);
          }
        }
      }
    }
  });
});
