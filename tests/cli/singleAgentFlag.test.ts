import { after, describe } from "node:test";
import { sharedTest } from "../support/testShare.ts";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { openStore } from "../../events/openStore.ts";
import { readStream } from "../../events/readStream.ts";
import { runStreamId } from "../../events/runStreams.ts";

const dir = mkdtempSync(join(tmpdir(), "ariadne-single-agent-flag-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `ariadne ARGS` in this process on an embedded store, with no model configured; its exit code, stdout and stderr. */
async function ariadne(args: string[], dataDir = join(dir, "data")) {
  const out: string[] = [];
  const errors: string[] = [];
  const original = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    const code = await main([...args, "--data-dir", dataDir], (line) => out.push(line), readConfig({}));
    return { code, out, errors };
  } finally {
    console.error = original;
  }
}

// Each test runs its commands in processes of their own: dealt between the Node lines of `npm test`.
const test = sharedTest();

describe("--single-agent on ariadne run and ariadne submit", () => {
  test("with an option that makes no sense for one executor: exit 2 naming it, and nothing written", async () => {
    const untouched = join(dir, "never-opened");
    const cases: [string[], RegExp][] = [
      [["run", "--single-agent", "--reviewer", "shadow"], /reviewer: makes no sense with singleAgent \(--single-agent\).*--reviewer shadow/],
      [["run", "--single-agent", "--max-child-turns", "3"], /caps\.child\.maxTurns: makes no sense with singleAgent \(--single-agent\).*--max-child-\*/],
      [["submit", "--offline", "--single-agent", "--max-depth", "1"], /caps\.delegation\.maxDepth: makes no sense with singleAgent \(--single-agent\).*--max-depth/],
    ];
    for (const [args, message] of cases) {
      const { code, out, errors } = await ariadne(args, untouched);
      assert.equal(code, 2, `${args.join(" ")}: ${errors.join("\n")}`);
      assert.deepEqual(out, []);
      assert.match(errors.join("\n"), message);
    }
    assert.equal(existsSync(untouched), false, "no store was opened");
  });

  test("ariadne submit --single-agent records it with the run's options", async () => {
    const { code, out, errors } = await ariadne(["submit", "--offline", "--single-agent", "--json"]);
    assert.equal(code, 0, errors.join("\n"));
    const { runId } = JSON.parse(out.at(-1)!) as { runId: string };
    const { database, close } = await openStore({ dataDir: join(dir, "data") });
    try {
      const [submitted] = await readStream(database, runStreamId(runId), { limit: 1 });
      assert.equal((submitted!.data as { options: Record<string, unknown> }).options.singleAgent, true);
    } finally {
      await close();
    }
  });

  test("a single agent stopped by a limit: its own findings are shown as Main's, never as a Child's handoff", async () => {
    const { code, out, errors } = await ariadne(["run", "--single-agent", "--max-main-turns", "3"], join(dir, "stopped"));
    assert.equal(code, 3, errors.join("\n"));
    const text = out.join("\n");
    assert.match(text, /^What Main gathered itself \(a single agent, no Children\):$/m);
    assert.match(text, /^handoff of main \([0-9a-f-]+\): partial, confidence low$/m);
    assert.match(text, /^ {4}cites main \(/m);
    assert.doesNotMatch(text, /child:general|What the Children handed back|No Child handed anything back/);
  });

  test("--help of ariadne and of ariadne submit documents the flag", async () => {
    const top = await ariadne(["--help"]);
    assert.equal(top.code, 0);
    assert.match(top.out.join("\n"), /--single-agent\s+run: one executor with every tool but delegate and no Children/);
    const submit = await ariadne(["submit", "--help"]);
    assert.equal(submit.code, 0);
    assert.match(submit.out.join("\n"), /--single-agent\s+one executor with every tool but delegate/);
  });
});
