import { build, type Metafile } from "esbuild";
import { fileURLToPath } from "node:url";
import { ownImportMetaUrl } from "./ownImportMetaUrl.ts";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * Packages that find files beside their own modules (PGlite its WebAssembly and data, unpdf its PDF.js,
 * swagger-ui-dist its pages through __dirname) or are optional (pg-native, which pg tries): never bundled.
 */
export const PACKAGES_LOADED_FROM_DISK = ["@electric-sql/pglite", "unpdf", "swagger-ui-dist", "pg-native"];

/**
 * The one way our TypeScript becomes JavaScript that plain Node runs: entry
 * points bundled with esbuild into `outdir` (repo-relative), each at its path
 * under the repository (cli/start.ts -> <outdir>/cli/start.mjs), the code they
 * share in chunks, split so a dynamic import loads its chunk only when taken.
 * Every module of ours keeps its own `import.meta.url`, so migrations, profiles
 * and the corpus are found in the repository. Packages stay external and load as
 * Node loads them, unless `packages: "bundled"` (the command line's build): then
 * they are bundled too, all but PACKAGES_LOADED_FROM_DISK; loading kysely's,
 * zod's and linkedom's some 500 files one by one costs more memory and CPU than
 * the code itself (`ariadne run` on PostgreSQL 144 -> 135 MB, 1.5 -> 1.1 s CPU).
 * The command line's build (build/cli.ts), the test build (tests/build.ts) and
 * `bench -- rss` use it.
 */
export async function bundle(entryPoints: readonly string[], outdir: string, { packages = "external" }: { packages?: "external" | "bundled" } = {}): Promise<Metafile> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: [...entryPoints],
    outdir,
    outbase: ROOT,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    ...(packages === "external" ? { packages: "external" as const } : { external: [...PACKAGES_LOADED_FROM_DISK] }),
    // CommonJS packages bundled into an ES module call `require` (Node's built-ins, optional packages).
    ...(packages === "bundled" ? { banner: { js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);' } } : {}),
    logLevel: "warning",
    metafile: true,
    plugins: [ownImportMetaUrl],
  });
  return metafile;
}
