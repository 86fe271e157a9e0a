import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { writeBundle } from "../../bundle/writeBundle.ts";
import { ROOT, outputOf } from "../cli/ariadneProcess.ts";
import { scratchDir } from "./exportedRun.ts";

/** Modules that open or query a database: a driver, the query builder, the store, the tables. */
const DATABASE = /\/node_modules\/(kysely|pg|pg-[\w-]+|@electric-sql\/pglite)\/|\/(db|migrations)\/[^/]+\.ts$|\/events\/(openStore|eventStore|inspectRun|verifyStream|runStreams|verifyRun)\.ts$/;

/**
 * The modules behind what the command loaded: a file of the command line's build (dist/, what `npm ci` makes
 * and `ariadne` runs) stands for the modules esbuild put in it (dist/outputs.json), each as /<path>.
 */
function asSources(urls: readonly string[]): string[] {
  const dist = new URL("dist/", `file://${ROOT.endsWith("/") ? ROOT : `${ROOT}/`}`).href;
  if (!urls.some((u) => u.startsWith(dist))) return [...urls];
  const outputs = JSON.parse(readFileSync(join(ROOT, "dist/outputs.json"), "utf8")) as Record<string, string[]>;
  return urls.flatMap((u) => {
    if (!u.startsWith(dist)) return [u];
    const held = outputs[`dist/${u.slice(dist.length)}`];
    assert.ok(held, `${u} is a file of the build`);
    return held.map((input) => `/${input}`);
  });
}

describe("ariadne verify DIR loads nothing that reaches a database", () => {
  test("the modules the command resolves, recorded by a resolve hook, include no driver, no db/ and no store", async () => {
    const root = scratchDir("imports");
    const dir = join(root, "bundle");
    const key = generateKeyPairSync("ed25519");
    writeBundle(dir, { runId: "run-imports", links: [], events: [], rootHash: "b".repeat(64), sealEventId: "e", blobs: new Map() }, key.privateKey);
    const pub = join(root, "seal.pub");
    writeFileSync(pub, key.publicKey.export({ type: "spki", format: "pem" }) as string);
    const log = join(root, "imports.log");
    writeFileSync(log, "");
    const child = spawn(process.execPath, ["--import", new URL("./registerImportLog.mjs", import.meta.url).href, join(ROOT, "cli/bin.mjs"), "verify", dir, "--key", pub], {
      cwd: ROOT,
      // A database URL no server answers: were it used, the command would fail on it.
      env: { ...process.env, ARIADNE_IMPORT_LOG: log, DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
    });
    const r = await outputOf(child);
    // The bundle holds no events, so it is not intact: the verification ran to its end.
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /NOT intact: events\.jsonl: holds no events/);
    const loaded = asSources([...new Set(readFileSync(log, "utf8").split("\n").filter(Boolean))]);
    // The verifier itself, the claim provenance fold it follows claims with and the quote checks verify RUN shares.
    for (const m of ["/bundle/verifyBundle.ts", "/projections/claimChains.ts", "/events/quoteProblemsIn.ts"]) assert.ok(loaded.some((u) => u.endsWith(m)), `the hook saw ${m} load:\n${loaded.join("\n")}`);
    assert.deepEqual(loaded.filter((u) => DATABASE.test(u)), []);
  });
});
