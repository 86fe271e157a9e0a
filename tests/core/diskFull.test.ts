import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DiskFullError, isDiskFull } from "../../core/diskFull.ts";
import { isConnectionError } from "../../core/connectionLoss.ts";

const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("a full disk, classified in one place (core/diskFull.ts)", () => {
  it("SQLSTATE 53100, ENOSPC, the C library's words, wrapped or not", () => {
    for (const e of [
      coded("53100", 'could not extend file "base/5/16398": No space left on device'),
      coded("53100", "could not write to file"),
      coded("ENOSPC", "ENOSPC: no space left on device, write"),
      new Error('could not extend file "base/16384/16399": No space left on device'),
      new Error("wrapped", { cause: coded("ENOSPC") }),
      new DiskFullError("/data", "cannot start"),
    ]) {
      assert.equal(isDiskFull(e), true, `${(e as Error).message} (${(e as { code?: string }).code})`);
    }
  });

  it("anything else is not: another SQLSTATE, a lost connection, a plain error", () => {
    for (const e of [coded("23505", "duplicate key"), coded("53200", "out of memory"), coded("ECONNRESET"), new Error("boom"), null, "No space"]) {
      assert.equal(isDiskFull(e), false, String((e as Error)?.message ?? e));
    }
  });

  it("is not a lost connection: a full disk interrupts a run, it is not ridden out by retrying", () => {
    assert.equal(isConnectionError(coded("53100", "could not extend file")), false);
  });

  it("names where, in one line", () => {
    assert.equal(new DiskFullError("/d", "run r is interrupted").message, "no space left on device at /d: run r is interrupted");
  });
});
