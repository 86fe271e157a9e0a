import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * cli/bin.mjs, the `ariadne` command, in a package of its own: a build
 * (dist/cli/start.mjs and dist/inputs.json, as build/cli.ts writes them) and
 * the sources (cli/start.ts). It runs the build when no source it lists is
 * newer, else the sources through tsx, so an edit is never hidden by an old build.
 */
function fakePackage(t: { after: (fn: () => void) => void }): { dir: string; run: () => string; touch: (path: string, at: number) => void } {
  const dir = mkdtempSync(join(tmpdir(), "ariadne-bin-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "cli"));
  mkdirSync(join(dir, "dist", "cli"), { recursive: true });
  copyFileSync(join(ROOT, "cli", "bin.mjs"), join(dir, "cli", "bin.mjs"));
  for (const file of ["v8Flags.mjs", "v8Threads.mjs"]) copyFileSync(join(ROOT, "cli", file), join(dir, "cli", file));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  // Each entry says what it is; the sources' type annotation runs only if tsx compiled them.
  writeFileSync(join(dir, "cli", "start.ts"), `const from: string = "sources";\nconsole.log(from);\n`);
  writeFileSync(join(dir, "cli", "helper.ts"), "export {};\n");
  writeFileSync(join(dir, "dist", "cli", "start.mjs"), `console.log("build");\n`);
  const builtAt = Date.now() - 60_000;
  writeFileSync(join(dir, "dist", "inputs.json"), JSON.stringify({ builtAt, inputs: ["cli/start.ts", "cli/helper.ts"] }));
  const touch = (path: string, at: number) => utimesSync(join(dir, path), at / 1000, at / 1000);
  touch("cli/start.ts", builtAt - 60_000);
  touch("cli/helper.ts", builtAt - 60_000);
  const run = () => {
    const r = spawnSync(process.execPath, [join(dir, "cli", "bin.mjs")], { encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  return { dir, run, touch };
}

test("bin.mjs runs the build when every source it was built from is older", (t) => {
  const pkg = fakePackage(t);
  assert.equal(pkg.run(), "build");
});

test("bin.mjs runs the sources through tsx when one of them changed after the build", (t) => {
  const pkg = fakePackage(t);
  pkg.touch("cli/helper.ts", Date.now());
  assert.equal(pkg.run(), "sources");
});

test("bin.mjs runs the sources when a source the build read is gone, or there is no build", (t) => {
  const pkg = fakePackage(t);
  rmSync(join(pkg.dir, "cli", "helper.ts"));
  assert.equal(pkg.run(), "sources");
  rmSync(join(pkg.dir, "dist"), { recursive: true });
  assert.equal(pkg.run(), "sources");
});
