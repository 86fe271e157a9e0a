import { build, type Metafile } from "esbuild";
import { fileURLToPath } from "node:url";
import { ownImportMetaUrl } from "./ownImportMetaUrl.ts";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));

/**
 * The one way our TypeScript becomes JavaScript that plain Node runs: entry
 * points bundled with esbuild into `outdir` (repo-relative), each at its path
 * under the repository (cli/start.ts -> <outdir>/cli/start.mjs), the code they
 * share in chunks, split so a dynamic import loads its chunk only when taken.
 * Packages stay external and load as Node loads them for a user; every module
 * of ours keeps its own `import.meta.url`, so migrations, profiles and the corpus
 * are found in the repository. The command line's build (build/prepare.ts), the
 * test build (tests/build.ts) and `bench -- rss` use it.
 */
export async function bundle(entryPoints: readonly string[], outdir: string): Promise<Metafile> {
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
    packages: "external",
    logLevel: "warning",
    metafile: true,
    plugins: [ownImportMetaUrl],
  });
  return metafile;
}
