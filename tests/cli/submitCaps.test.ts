import { after, describe } from "node:test";
import { sharedTest } from "../support/testShare.ts";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { askedCapsFromFlags, capsFromFlags, runtimeLimitsFromFlags } from "../../cli/capFlags.ts";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { openStore } from "../../events/openStore.ts";
import { readStream } from "../../events/readStream.ts";
import { runStreamId } from "../../events/runStreams.ts";
import { CONFIGURED_CAPS } from "../../governance/index.ts";
import { planRun } from "../../runs/index.ts";

const dir = mkdtempSync(join(tmpdir(), "ariadne-submit-caps-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** `ariadne submit ARGS` in this process on an embedded store, with no model configured; its exit code, stdout and stderr. */
async function submit(args: string[]) {
  const out: string[] = [];
  const errors: string[] = [];
  const original = console.error;
  console.error = (line: string) => errors.push(line);
  try {
    const code = await main(["submit", ...args, "--data-dir", dir], (line) => out.push(line), readConfig({}));
    return { code, out, errors };
  } finally {
    console.error = original;
  }
}

// Dealt between the Node lines of `npm test` (tests/support/testShare.ts).
const test = sharedTest();

describe("ariadne submit sets the caps ariadne run can", () => {
  test("cap flags are recorded with the run, resolved as `ariadne run` resolves them (Child caps lowering investigate-style Children)", async () => {
    const flags = ["--max-run-tokens", "200000", "--max-main-turns", "6", "--max-child-tool-calls", "7", "--max-child-seconds", "120", "--max-depth", "1"];
    const { code, out, errors } = await submit(["--offline", "--json", ...flags]);
    assert.equal(code, 0, errors.join("\n"));
    const { runId } = JSON.parse(out.at(-1)!) as { runId: string };
    const { database, close } = await openStore({ dataDir: dir });
    try {
      const [submitted] = await readStream(database, runStreamId(runId), { limit: 1 });
      assert.equal(submitted.type, "run_submitted");
      const options = (submitted.data as { options: Record<string, unknown> }).options;
      assert.equal(options.mode, "offline");
      const caps = options.caps as typeof CONFIGURED_CAPS;
      assert.deepEqual(caps, capsFromFlags({ "max-run-tokens": "200000", "max-main-turns": "6", "max-child-tool-calls": "7", "max-child-seconds": "120", "max-depth": "1" }));
      assert.equal(caps.run.maxTokens, 200_000);
      assert.deepEqual([caps.child.maxToolCalls, caps.investigate.maxToolCalls], [7, 7]);
      assert.deepEqual([caps.child.wallClockMs, caps.investigate.wallClockMs], [120_000, CONFIGURED_CAPS.investigate.wallClockMs]);
      assert.equal(caps.delegation.maxDepth, 1);
      assert.deepEqual(options.limits, { main: { maxTurns: 6 }, child: { maxToolCalls: 7 } });
    } finally {
      await close();
    }
  });

  test("a cap flag above the configured maximum is bad usage: exit 2, one line naming the flag", async () => {
    const { code, out, errors } = await submit(["--offline", "--max-child-tool-calls", "40"]);
    assert.equal(code, 2);
    assert.deepEqual(out, []);
    assert.deepEqual(errors, ["ariadne: cap flags refused: --max-child-tool-calls: 40 is above the configured maximum 25; a run may only lower its caps"]);
  });

  test("the caps the flags ask for become the run's caps and admission limits through runs/planRun, as an API body's do", async () => {
    const values = { "max-main-turns": "8", "max-child-turns": "20", "max-depth": "1" };
    const plan = await planRun({ offline: true, caps: askedCapsFromFlags(values) }, { modelConfigured: false, nothingAsked: "scenario" });
    assert.deepEqual(plan.options.caps, capsFromFlags(values));
    assert.deepEqual(plan.options.limits, runtimeLimitsFromFlags(values));
    // The API's body {"caps": {"main": {"maxTurns": 8}, "child": {"maxTurns": 20}, "maxDepth": 1}} asks the same of planRun.
    assert.deepEqual(askedCapsFromFlags(values), { main: { maxTurns: 8 }, child: { maxTurns: 20 }, delegation: { maxDepth: 1 } });
    assert.equal((plan.options.caps as typeof CONFIGURED_CAPS).investigate.maxTurns, CONFIGURED_CAPS.investigate.maxTurns, "a Child cap above the investigate cap never raises it");
  });
});
