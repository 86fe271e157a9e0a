import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../runs/processes.ts";
import { ownImportMetaUrl } from "../../build/ownImportMetaUrl.ts";
import { builtEntry } from "../support/testBuild.ts";

/**
 * A test entry point bundled into one .mjs with esbuild (the one tsx brings),
 * so each fault process starts in well under a second instead of the ~3 s
 * tsx spends compiling and resolving some 200 modules and the packages' many
 * more: the soak starts a process per crash. PGlite stays external (resolved
 * through a node_modules link beside the bundle) and every module of ours keeps
 * its own `import.meta.url`, so profiles and the corpus are found where they are. Under `npm test` the
 * entry comes from the test build (tests/build.ts) instead. FAULT_BUNDLE=0, or no
 * esbuild to load, runs the .ts file under tsx as before.
 */
const built = new Map<string, Promise<string>>();

export async function bundled(entry: string): Promise<string> {
  if (process.env.FAULT_BUNDLE === "0") return entry;
  const prebuilt = builtEntry(entry);
  if (prebuilt) return prebuilt;
  let script = built.get(entry);
  // A long soak outlives what a shared machine keeps in its temp directory: a bundle cleaned away is built again.
  if (script && !existsSync(await script)) script = undefined;
  if (!script) built.set(entry, (script = bundle(entry).catch(() => entry)));
  return script;
}

async function bundle(entry: string): Promise<string> {
  const { build } = await import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "ariadne-bundle-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  const outfile = join(dir, entry.replace(/^.*\//, "").replace(/\.ts$/, ".mjs"));
  await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    platform: "node",
    format: "esm",
    // Packages are bundled too (loading kysely's or the SDK's hundreds of files costs more than the
    // rest of a fault process), except PGlite, which finds its WebAssembly beside its own module.
    external: ["@electric-sql/pglite", "pg-native"],
    // CommonJS packages (pg) require Node's built-ins; an ES module has no `require` of its own.
    banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' },
    outfile,
    logLevel: "error",
    plugins: [ownImportMetaUrl],
  });
  return outfile;
}
