import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";

/**
 * An esbuild plugin that keeps every bundled module of ours at its own
 * `import.meta.url` (the source file's), so profiles, migrations, fixtures and
 * the corpus are found where they are, whatever folder the bundle lands in.
 * A quoted "import.meta.url" is text, not the expression, and stays.
 */
export const ownImportMetaUrl: Plugin = {
  name: "own-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8")).replace(/(?<!["'`])\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href)),
      loader: "ts",
    }));
  },
};
