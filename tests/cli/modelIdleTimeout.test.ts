import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../cli/main.ts";
import { type AnthropicWireServer, stall, startAnthropicWireServer } from "../../models/testing/index.ts";
import { ADMIN_URL, ENGINES, adminQuery as admin } from "../support/testDatabase.ts";
import { DEFAULT_MODELS } from "../../models/config.ts";

/** Settles like `promise`, or rejects after `ms`: a hang fails the test instead of stalling it. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Runs `main` in-process with console.error captured. */
async function ariadne(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const original = console.error;
  console.error = (...parts: unknown[]) => void err.push(parts.join(" "));
  try {
    return { code: await main(args, (line) => out.push(line)), out, err };
  } finally {
    console.error = original;
  }
}

describe("ariadne run --model-idle-timeout", () => {
  test("a value that is not a positive number of seconds exits 2 naming the flag", async () => {
    for (const bad of ["abc", "0", "-1", ""]) {
      const { code, err } = await ariadne(["run", "q", `--model-idle-timeout=${bad}`]);
      assert.equal(code, 2);
      assert.match(err.join("\n"), new RegExp(`--model-idle-timeout takes a positive number of seconds, got "${bad}"`));
    }
  });

  // The run needs a store; PostgreSQL is cheaper here than a PGlite per file.
  if (ENGINES.includes("postgres")) describe("against PostgreSQL and a stalling model", () => {
    const name = `ariadne_test_${process.pid}_idle_${Math.random().toString(36).slice(2, 8)}`;
    const saved = { ...process.env };
    let server: AnthropicWireServer;
    before(async () => {
      await admin(`CREATE DATABASE ${name}`);
      server = await startAnthropicWireServer({ handler: () => stall(2) });
      Object.assign(process.env, {
        DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString(),
        ANTHROPIC_API_KEY: "test",
        ANTHROPIC_BASE_URL: server.url,
      });
    });
    after(async () => {
      process.env = saved;
      await server.close();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });

    test("the flag sets how long a silent stream is waited for: each stalled call fails after it", { timeout: 60_000 }, async () => {
      const { code, out } = await within(30_000, ariadne(["run", "What does ADIV cost?", "--model-idle-timeout", "0.2"]));
      // Three stalled calls are Main's failed-call limit: it settles with a partial answer (exit 3) that says why.
      assert.equal(code, 3);
      assert.match(out.join("\n"), /Partial answer: model call failed 3 time\(s\): .*stalled/);
      // Main's own calls (the Checker, started on the partial answer, meets the same stalling model).
      const mains = server.requests.filter((r) => (r.body as { model?: string }).model === DEFAULT_MODELS.main);
      assert.equal(mains.length, 3, "one request per failed turn, each given up after 0.2 s of silence");
    });
  });
});
