import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseArgs } from "node:util";
import { CAP_FLAG_OPTIONS, capFlagsUsage, capsFromFlags, runtimeLimitsFromFlags } from "../../cli/capFlags.ts";
import { main } from "../../cli/main.ts";
import { isValidationError } from "../../core/errors.ts";
import { CONFIGURED_CAPS } from "../../governance/index.ts";

const flags = (...args: string[]) => parseArgs({ args, options: CAP_FLAG_OPTIONS, strict: true }).values;

describe("ariadne run cap flags", () => {
  it("gives the configured caps when no flag is set", () => {
    assert.deepEqual(capsFromFlags({}), CONFIGURED_CAPS);
  });

  it("lowers the caps the flags name, a Child-wide flag lowering investigate-style Children as well", () => {
    const caps = capsFromFlags(flags("--max-run-tokens", "200000", "--max-cost-usd", "1.25", "--max-child-tool-calls", "10", "--max-child-seconds", "120"));
    assert.equal(caps.run.maxTokens, 200_000);
    assert.equal(caps.run.maxCostMicros, 1_250_000);
    assert.deepEqual([caps.child.maxToolCalls, caps.investigate.maxToolCalls], [10, 10]);
    assert.deepEqual([caps.child.wallClockMs, caps.investigate.wallClockMs], [120_000, 90_000], "never raised above the investigate cap");
  });

  it("refuses a value above the maximum or not a number, naming each flag", () => {
    assert.throws(
      () => capsFromFlags(flags("--max-run-tokens", "900000", "--max-fan-out", "two", "--max-cost-usd=-1")),
      (e) =>
        isValidationError(e) &&
        /--max-run-tokens: 900000 is above the configured maximum 600000/.test(e.message) &&
        /--max-fan-out: expected a positive integer, got "two"/.test(e.message) &&
        /--max-cost-usd: expected a positive number/.test(e.message),
    );
  });

  it("freezes only the turn and tool-call limits given into the runtime's admission limits", () => {
    assert.deepEqual(runtimeLimitsFromFlags(flags("--max-child-tool-calls", "7")), { main: {}, child: { maxToolCalls: 7 } });
  });

  it("lists every flag with its maximum in the usage", () => {
    assert.match(capFlagsUsage(), /--max-run-tokens N\s+input\+output tokens of the whole run \(at most 600000\)/);
    assert.match(capFlagsUsage(), /--max-cost-usd X\s+.*\(at most 5\)/);
  });

  it("`ariadne run` with a cap above the maximum is bad usage: exit 2, one line, nothing written", async () => {
    const errors: string[] = [];
    const original = console.error;
    console.error = (line: string) => errors.push(line);
    try {
      assert.equal(await main(["run", "--max-child-tool-calls", "40", "--data-dir", "/nonexistent/never-created"], () => {}), 2);
    } finally {
      console.error = original;
    }
    assert.deepEqual(errors, ["ariadne: cap flags refused: --max-child-tool-calls: 40 is above the configured maximum 25; a run may only lower its caps"]);
  });
});
