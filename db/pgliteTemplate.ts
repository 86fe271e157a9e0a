import { existsSync, readFileSync } from "node:fs";
import { copyFile, cp, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A fresh embedded store starts as a copy of a template data directory, made
 * once per PGlite version. PGlite's own first start runs initdb inside a second
 * PGlite instance and a tarball of its output, all in this process: 8-15 s and
 * about 750 MB of RSS that the process keeps (the WebAssembly memories never
 * shrink), where opening an existing directory takes about 170 MB. `npm ci`
 * makes the template (build/prepare.ts); a store opened without one makes it
 * then, once.
 *
 * Every store copied from it shares initdb's system identifier, which only a
 * replica compares; an embedded store has none.
 */
export async function seedDataDir(dataDir: string, startParams: readonly string[]): Promise<void> {
  if (existsSync(join(dataDir, "PG_VERSION"))) return;
  const template = await pgliteTemplate(startParams);
  // Merged into the directory, which holds the lock file already (lockDataDir). PG_VERSION, which makes a
  // directory a store (here, for PGlite and for the commands that only read), comes last: a copy cut short
  // (a full disk) leaves no store, and the next start copies again.
  await cp(template, dataDir, { recursive: true, filter: (from) => !(dirname(from) === template && basename(from) === "PG_VERSION") });
  await copyFile(join(template, "PG_VERSION"), join(dataDir, "PG_VERSION"));
}

/** The template's directory for the installed PGlite, made (atomically) when missing. */
export async function pgliteTemplate(startParams: readonly string[]): Promise<string> {
  const { dir, version } = templateLocation();
  if (existsSync(join(dir, "PG_VERSION"))) return dir;
  await mkdir(dirname(dir), { recursive: true });
  const making = await mkdtemp(`${dir}.making-`);
  try {
    const { PGlite } = await import("@electric-sql/pglite");
    const pglite = new PGlite(making, { startParams: [...startParams] });
    await pglite.waitReady;
    await pglite.close();
    // Another process may have made it meanwhile: theirs stays, ours goes.
    await rename(making, dir).catch((e: { code?: string }) => {
      if (!existsSync(join(dir, "PG_VERSION"))) throw new Error(`cannot keep the PGlite ${version} template at ${dir}: ${(e as Error).message}`, { cause: e });
    });
  } finally {
    await rm(making, { recursive: true, force: true });
  }
  return dir;
}

/** node_modules/.cache/ariadne/pglite-<version>, beside the PGlite package this process loads. */
export function templateLocation(): { dir: string; version: string } {
  const entry = fileURLToPath(import.meta.resolve("@electric-sql/pglite"));
  // .../node_modules/@electric-sql/pglite/dist/index.js
  const packageDir = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  return { dir: join(dirname(dirname(packageDir)), ".cache", "ariadne", `pglite-${version}`), version };
}
