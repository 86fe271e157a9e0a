import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DatabaseUnavailableError, isConnectionError, isDatabaseUnavailable, retryOnConnectionLoss } from "../../core/connectionLoss.ts";

const coded = (code: string, message = "x") => Object.assign(new Error(message), { code });

describe("connection loss, classified in one place (core/connectionLoss.ts)", () => {
  it("a lost or refused connection: SQLSTATE 57P01/57P02/57P03 and class 08, socket errors, the pg driver's own words", () => {
    for (const e of [
      coded("57P01", "terminating connection due to administrator command"),
      coded("57P02", "terminating connection because of crash of another server process"),
      coded("57P03", "the database system is starting up"),
      coded("55000", 'database "x" is not currently accepting connections'),
      coded("08006"),
      coded("08001"),
      coded("08P01"),
      coded("ECONNRESET", "read ECONNRESET"),
      coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      coded("EPIPE"),
      new Error("Connection terminated unexpectedly"),
      new Error("Connection terminated due to connection timeout"),
      new Error("Client has encountered a connection error and is not queryable"),
      new Error("timeout exceeded when trying to connect"),
      new Error("wrapped", { cause: coded("ECONNREFUSED") }),
      Object.assign(new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]), { message: "" }),
      new DatabaseUnavailableError("read", 60_000, { cause: coded("ECONNREFUSED") }),
    ]) {
      assert.equal(isConnectionError(e), true, `${(e as Error).message} (${(e as { code?: string }).code})`);
    }
  });

  it("an answer is not: a constraint, a fence (AR409), a conflict, a syntax error, a server error mentioning a connection, plain errors", () => {
    for (const e of [
      coded("23514", "new row violates check constraint"),
      coded("23505"),
      coded("55000", "cannot drop the currently open database"),
      coded("AR409", "run x is at epoch 3, this writer holds epoch 2"),
      coded("40001"),
      coded("42601"),
      coded("XX000", "Connection terminated unexpectedly"),
      new Error("terminating connection due to administrator command"),
      new Error("boom"),
      null,
      undefined,
      "ECONNRESET",
    ]) {
      assert.equal(isConnectionError(e), false, String((e as Error)?.message ?? e));
    }
  });

  it("retries a lost connection with backoff, and returns what the call returned", async () => {
    let calls = 0;
    const retried: number[] = [];
    const value = await retryOnConnectionLoss(
      "a read",
      async () => {
        if (++calls < 3) throw coded("57P01");
        return "ok";
      },
      { firstDelayMs: 5, onRetry: (_what, _e, attempt) => retried.push(attempt) },
    );
    assert.equal(value, "ok");
    assert.deepEqual(retried, [1, 2]);
  });

  // Giving up at all is what is shown (a retry without end would run into the test's timeout).
  it("gives up after maxWaitMs with DatabaseUnavailableError naming what was tried and its cause", { timeout: 30_000 }, async () => {
    const cause = coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1");
    const error = await retryOnConnectionLoss("reserve budget for e1", () => Promise.reject(cause), { maxWaitMs: 200, firstDelayMs: 20, maxDelayMs: 50 }).catch((e) => e);
    assert.ok(isDatabaseUnavailable(error));
    assert.equal(error.cause, cause);
    assert.match(error.message, /unreachable .*reserve budget for e1.*ECONNREFUSED/);
  });

  it("any other error is thrown at once, and a nested give-up is not retried again", async () => {
    let calls = 0;
    const other = await retryOnConnectionLoss("x", async () => {
      calls++;
      throw coded("23505");
    }).catch((e) => e);
    assert.equal(other.code, "23505");
    assert.equal(calls, 1);
    calls = 0;
    const nested = await retryOnConnectionLoss("outer", async () => {
      calls++;
      throw new DatabaseUnavailableError("inner", 60_000, { cause: coded("ECONNRESET") });
    }).catch((e) => e);
    assert.ok(isDatabaseUnavailable(nested));
    assert.equal(calls, 1);
  });
});
