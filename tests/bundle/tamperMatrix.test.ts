import assert from "node:assert/strict";
import { type KeyObject, generateKeyPairSync } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { verifyBundle } from "../../bundle/verifyBundle.ts";
import { Buffer } from "node:buffer";
import { sha256Of } from "../../bundle/manifest.ts";
import { canonicalJson } from "../../core/canonicalJson.ts";
import { ENGINES } from "../support/testDatabase.ts";
import { exportedRun } from "./exportedRun.ts";
import { copyOf, eventLines, forgeLog, lineOf, read, removeLines, reseal, write, writeEventLines } from "./forger.ts";

/** The publisher's key, and a forger's own. */
const ours = generateKeyPairSync("ed25519");
const theirs = generateKeyPairSync("ed25519");

interface Case {
  name: string;
  tamper(dir: string): void;
  /** After the change, the forger re-lists every file and re-signs the manifest with this key (none: left as changed). */
  reseal?: KeyObject;
  /** The problem named when verifying with the publisher's key. */
  caught: RegExp;
  /** Where resealed: the problem the deeper checks name when no key is given at all (the signature unchecked). */
  deep?: RegExp;
  /** Every problem the deeper checks name is that one: nothing but it was left to catch the change. */
  alone?: boolean;
  /** Verify with this public key instead of the publisher's. */
  verifyWith?: KeyObject;
}

describe("the tamper matrix: every change to an exported bundle is caught", () => {
  let bundle: string;
  let child: string;
  before(async () => {
    ({ dir: bundle } = await exportedRun(ENGINES[0], ours.privateKey));
    const admitted = eventLines(bundle).map(lineOf).find((l) => l.type === "executor_admitted" && l.data.role === "child");
    assert.ok(admitted, "the run has a Child");
    child = admitted.metadata.executorId;
  });
  const childLines = (dir: string) => eventLines(dir).filter((l) => lineOf(l).streamId === `executor-${child}`);
  const blobs = (dir: string) => readdirSync(join(dir, "blobs/sha256")).sort();
  const signedByOther = /the manifest is signed by key [0-9a-f]{64}, not by the given key [0-9a-f]{64}/;
  const quoteNotInBlob = /quote findings\[\d+\]\.evidence\.quotes\[\d+\] of the handoff of \S+ is not in blob [0-9a-f]{64}: its text at characters \d+-\d+ is not the quoted text/;
  const PROSPECTUS_QUOTE = "Dividend concentration risk";
  /** The text blob a Child's handoff quotes the prospectus from. */
  const quotedBlob = (dir: string) => {
    const line = eventLines(dir).map(lineOf).find((l) => l.type === "handoff_committed" && JSON.stringify(l.data).includes(PROSPECTUS_QUOTE));
    const findings = (line?.data.handoff as { findings: { evidence: { quotes?: { text: string; source: { sha256: string } }[] } }[] } | undefined)?.findings ?? [];
    const quote = findings.flatMap((f) => f.evidence.quotes ?? []).find((q) => q.text.includes(PROSPECTUS_QUOTE));
    assert.ok(quote, "a handoff quotes the prospectus, with the blob it was found in");
    assert.ok(read(dir, `blobs/sha256/${quote.source.sha256}`).includes(PROSPECTUS_QUOTE));
    return quote.source.sha256;
  };
  /** Rewrites text inside the payloads of the given event types. */
  const replaceIn = (types: string[], from: string, to: string) => (lines: { type: string; data: Record<string, unknown> }[]) => {
    for (const l of lines) if (types.includes(l.type)) l.data = JSON.parse(JSON.stringify(l.data).replaceAll(from, to));
  };

  const cases: Case[] = [
    {
      name: "events.jsonl truncated mid-line",
      tamper: (dir) => write(dir, "events.jsonl", read(dir, "events.jsonl").slice(0, -40)),
      caught: /^events\.jsonl: \d+ bytes, but manifest\.json lists \d+$/,
    },
    {
      name: "events.jsonl truncated mid-line, the manifest re-listed",
      tamper: (dir) => write(dir, "events.jsonl", read(dir, "events.jsonl").slice(0, -40)),
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /events\.jsonl: its last line is cut off/,
    },
    {
      name: "a Child's tail removed together with its manifest entry",
      tamper: (dir) => {
        const tail = new Set(childLines(dir).slice(-2));
        writeEventLines(dir, eventLines(dir).filter((l) => !tail.has(l)));
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /sealed at version \d+ \(run_sealed \S+\) but only \d+ events remain/,
    },
    {
      name: "a blob's bytes swapped for another blob's",
      tamper: (dir) => {
        const [a, b] = blobs(dir);
        write(dir, `blobs/sha256/${b}`, readFileSync(join(dir, `blobs/sha256/${a}`)));
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /blob [0-9a-f]{64} \(.*\) was changed: its bytes hash to [0-9a-f]{64}/,
    },
    {
      name: "a quote in a Child's handoff edited",
      tamper: (dir) => {
        const lines = eventLines(dir);
        const i = lines.findIndex((l) => lineOf(l).type === "handoff_committed" && l.includes("Dividend concentration risk"));
        assert.ok(i >= 0, "a handoff quotes the prospectus");
        lines[i] = lines[i].replace("Dividend concentration risk", "Dividend stability");
        writeEventLines(dir, lines);
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /executor-\S+ v\d+ \(event \S+\): content does not match its stored hash/,
    },
    {
      name: "a quote edited by a forger who re-chains every stream, re-makes the seal and the derived files and re-signs",
      tamper: (dir) => forgeLog(dir, theirs.privateKey, replaceIn(["handoff_committed", "handoff_consumed", "settled"], PROSPECTUS_QUOTE, "Dividend stability")),
      caught: signedByOther,
      deep: quoteNotInBlob,
      alone: true,
    },
    {
      name: "a quoted blob changed so the quote no longer occurs in it, the manifest re-listed",
      tamper: (dir) => {
        const path = `blobs/sha256/${quotedBlob(dir)}`;
        write(dir, path, read(dir, path).replaceAll(PROSPECTUS_QUOTE, "Dividend stability risk"));
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: quoteNotInBlob,
    },
    {
      name: "a quoted blob changed and renamed to its new hash, every reference to it rewritten, the log re-chained and re-signed",
      tamper: (dir) => {
        const old = quotedBlob(dir);
        const bytes = Buffer.from(read(dir, `blobs/sha256/${old}`).replaceAll(PROSPECTUS_QUOTE, "Dividend diversification"), "utf8");
        const renamed = sha256Of(bytes);
        rmSync(join(dir, `blobs/sha256/${old}`));
        write(dir, `blobs/sha256/${renamed}`, bytes);
        forgeLog(dir, theirs.privateKey, replaceIn(["tool_completed", "handoff_committed", "handoff_consumed"], old, renamed));
      },
      caught: signedByOther,
      deep: quoteNotInBlob,
      alone: true,
    },
    {
      name: "Main's receipt of a Child's handoff removed, its stream re-numbered and the log re-chained and re-signed",
      tamper: (dir) =>
        forgeLog(dir, theirs.privateKey, (lines) => {
          const i = lines.findIndex((l) => l.type === "handoff_consumed" && l.data.childExecutorId === child);
          assert.ok(i >= 0, "Main consumed the Child's handoff");
          const [gone] = lines.splice(i, 1);
          for (const l of lines.slice(i)) if (l.streamId === gone.streamId) l.streamVersion -= 1;
        }),
      caught: signedByOther,
      // The claim check and the run's end both catch it now: the Child's committed handoff was never consumed.
      deep: /settled without consuming it: the parent's handoff_consumed was removed/,
    },
    {
      name: "two lines reordered",
      tamper: (dir) => {
        const lines = eventLines(dir);
        const i = lines.findIndex((l, k) => k > 0 && lineOf(l).streamId !== lineOf(lines[k - 1]).streamId);
        [lines[i - 1], lines[i]] = [lines[i], lines[i - 1]];
        writeEventLines(dir, lines);
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /events\.jsonl line \d+: position \d+ does not follow \d+: the lines are out of log order/,
    },
    {
      name: "a Child's stream dropped whole, with its findings and transcript",
      tamper: (dir) => {
        const gone = new Set(childLines(dir));
        writeEventLines(dir, eventLines(dir).filter((l) => !gone.has(l)));
        rmSync(join(dir, `findings/${child}.md`), { force: true });
        rmSync(join(dir, `transcripts/${child}.md`));
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /names Child \S+, whose stream executor-\S+ is missing|consumed the handoff of Child \S+, whose stream executor-\S+ is missing/,
    },
    {
      name: "verified with the wrong key",
      tamper: () => {},
      verifyWith: theirs.publicKey,
      caught: signedByOther,
    },
    {
      name: "the manifest re-signed with another key",
      tamper: () => {},
      reseal: theirs.privateKey,
      caught: signedByOther,
    },
    {
      name: "a derived file edited (answer.md)",
      tamper: (dir) => write(dir, "answer.md", `${read(dir, "answer.md")}\n- [c99] ADIV charges nothing. (observed)\n`),
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /^answer\.md: differs from what events\.jsonl derives/,
    },
    {
      name: "a claim's chain edited in claims.jsonl",
      tamper: (dir) => {
        const [first, ...rest] = read(dir, "claims.jsonl").split("\n");
        const claim = JSON.parse(first);
        assert.equal(claim.id, "c1");
        claim.findings[0].quotes = [];
        write(dir, "claims.jsonl", [canonicalJson(claim), ...rest].join("\n"));
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /^claims\.jsonl: differs from what events\.jsonl derives/,
    },
    {
      name: "a finding's text edited in findings/<executor>.md",
      tamper: (dir) => {
        const path = `findings/${readdirSync(join(dir, "findings"))[0]}`;
        const text = read(dir, path);
        write(dir, path, text.replace(/\*\*Claim:\*\* \S+/, "**Claim:** FORGED"));
        assert.notEqual(read(dir, path), text);
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /^findings\/\S+\.md: differs from what events\.jsonl derives/,
    },
    {
      name: "a blob deleted",
      tamper: (dir) => rmSync(join(dir, `blobs/sha256/${blobs(dir)[0]}`)),
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /blob [0-9a-f]{64} \(.*\) is missing from blobs\/sha256\//,
    },
    {
      name: "a file's hash edited in manifest.json",
      tamper: (dir) => {
        const m = JSON.parse(read(dir, "manifest.json"));
        m.files[0].sha256 = "0".repeat(64);
        write(dir, "manifest.json", `${JSON.stringify(m, null, 2)}\n`);
      },
      caught: /^manifest\.json: its sha256 is [0-9a-f]{64}, but the signed statement names [0-9a-f]{64}: the manifest was changed after it was signed$/,
      deep: /manifest\.json: its sha256 is/,
    },
    {
      name: "zero events",
      tamper: (dir) => write(dir, "events.jsonl", ""),
      reseal: theirs.privateKey,
      // Named before the signature: nothing else about an empty bundle matters.
      caught: /^events\.jsonl: holds no events: an empty bundle never verifies$/,
      deep: /^events\.jsonl: holds no events: an empty bundle never verifies$/,
    },
    {
      name: "the seal removed",
      tamper: (dir) => writeEventLines(dir, eventLines(dir).filter((l) => lineOf(l).type !== "run_sealed")),
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /the run has no run_sealed event/,
    },
    {
      name: "the root hash rewritten in the manifest and the signed statement",
      tamper: () => {},
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /manifest\.json: root hash 0{64}, but the heads in events\.jsonl hash to [0-9a-f]{64}/,
    },
    {
      name: "a field the hash does not cover added to an event line",
      tamper: (dir) => {
        const lines = eventLines(dir);
        lines[3] = canonicalJson({ ...JSON.parse(lines[3]), note: "reviewed and approved" })!;
        writeEventLines(dir, lines);
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /^events\.jsonl line 4: has a field "note" no event line has/,
    },
    {
      name: "a claim of the answer pointed at a finding no handoff holds",
      tamper: (dir) => {
        const lines = eventLines(dir);
        const i = lines.findIndex((l) => lineOf(l).type === "settled" && "answer" in lineOf(l).data);
        const line = JSON.parse(lines[i]);
        line.data.answer.sections[0].claims[0].citations[0].finding = 99;
        lines[i] = canonicalJson(line)!;
        writeEventLines(dir, lines);
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /^claim c1: the handoff of \S+ has no finding 99$/,
    },
    {
      name: "a file added that the manifest does not list",
      tamper: (dir) => write(dir, "notes.md", "trust me\n"),
      caught: /^notes\.md: in the bundle but not listed in manifest\.json$/,
    },
    {
      name: "the signature removed",
      tamper: (dir) => rmSync(join(dir, "manifest.sig.json")),
      caught: /^manifest\.sig\.json: missing: the manifest is not signed$/,
      deep: /manifest is not signed/,
    },
    {
      name: "a whole handoff removed (the Child's handoff and end, the parent's handoff_consumed), every stream re-chained, the seal and manifest re-signed by a forger",
      tamper: (dir) => {
        const committed = eventLines(dir).map((l) => JSON.parse(l) as { eventId: string; type: string; streamId: string; streamVersion: number }).find((l) => l.type === "handoff_committed" && l.streamId === `executor-${child}`)!;
        forgeLog(dir, theirs.privateKey, removeLines((l) => (l.streamId === committed.streamId && l.streamVersion >= committed.streamVersion) || (l.type === "handoff_consumed" && l.data.handoffEventId === committed.eventId)));
      },
      caught: signedByOther,
      deep: /never ended, yet the run is sealed: its final events were removed/,
    },
    {
      name: "a forger's public key planted in the bundle and listed",
      tamper: (dir) => {
        mkdirSync(join(dir, "keys"));
        write(dir, "keys/seal.pub", theirs.publicKey.export({ type: "spki", format: "pem" }) as string);
      },
      reseal: theirs.privateKey,
      caught: signedByOther,
      deep: /^keys\/seal\.pub: not derived from the events, nor part of the record$/,
    },
  ];

  test("the untampered bundle verifies, so each case below fails for its change alone", () => {
    const result = verifyBundle(copyOf(bundle, "intact"), { publicKey: ours.publicKey });
    assert.deepEqual(result.problems, []);
    assert.ok(cases.length >= 12);
  });

  for (const c of cases) {
    test(c.name, () => {
      const dir = copyOf(bundle, "tamper");
      c.tamper(dir);
      const rootCase = c.name.startsWith("the root hash");
      if (c.reseal) reseal(dir, c.reseal, rootCase ? (m) => ({ ...m, rootHash: "0".repeat(64) }) : undefined);
      const withKey = verifyBundle(dir, { publicKey: (c.verifyWith ?? ours.publicKey) });
      assert.equal(withKey.ok, false, `${c.name}: not caught with the key`);
      assert.match(withKey.problems[0], c.caught);
      if (c.deep) {
        const noKey = verifyBundle(dir, { publicKey: null });
        assert.equal(noKey.ok, false, `${c.name}: not caught without a key`);
        assert.ok(noKey.problems.some((p) => c.deep!.test(p)), `${c.name}: expected ${c.deep} among\n${noKey.problems.join("\n")}`);
        if (c.alone) assert.deepEqual(noKey.problems.filter((p) => !c.deep!.test(p)), [], `${c.name}: only ${c.deep} is left to catch it`);
      }
    });
  }

  test("a key inside the bundle, given as --key, proves nothing and is reported so", () => {
    const dir = copyOf(bundle, "keyinside");
    mkdirSync(join(dir, "keys"));
    write(dir, "keys/seal.pub", theirs.publicKey.export({ type: "spki", format: "pem" }) as string);
    reseal(dir, theirs.privateKey);
    const result = verifyBundle(dir, { publicKey: theirs.publicKey, publicKeyPath: join(dir, "keys/seal.pub") });
    assert.equal(result.signature.state, "unchecked");
    assert.ok(result.notes.some((n) => /keys\/seal\.pub: a key inside the bundle proves nothing/.test(n)), result.notes.join("\n"));
    assert.ok(result.notes.some((n) => /manifest signature NOT checked: the key given \(.*\) is inside the bundle/.test(n)), result.notes.join("\n"));
  });
});
