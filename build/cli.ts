import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundle, ROOT } from "./bundle.ts";

/** Where the command line is built; cli/bin.mjs runs it from here. */
export const CLI_BUILD = "dist";
/** The sources the build was made from, and when: cli/bin.mjs runs the sources instead when one is newer. */
export const CLI_INPUTS = "dist/inputs.json";
/** Which modules each built file holds (esbuild's metafile, code that made it in only): what a test of the build reads. */
export const CLI_OUTPUTS = "dist/outputs.json";

/**
 * Bundles cli/start.ts into dist/ (dist/cli/start.mjs and its chunks) and
 * records the sources it read. Made from scratch, so no chunk of an older
 * build is left beside it.
 */
export async function buildCli(): Promise<{ entry: string; inputs: number }> {
  rmSync(join(ROOT, CLI_BUILD), { recursive: true, force: true });
  const builtAt = Date.now();
  const metafile = await bundle(["cli/start.ts"], CLI_BUILD, { packages: "bundled" });
  // Our sources, by path from the repository; a package changes only with node_modules (npm ci builds again).
  const inputs = Object.keys(metafile.inputs).filter((path) => !path.includes("node_modules/"));
  writeFileSync(join(ROOT, CLI_INPUTS), `${JSON.stringify({ builtAt, inputs })}\n`);
  const outputs = Object.fromEntries(
    Object.entries(metafile.outputs).map(([file, o]) => [file, Object.entries(o.inputs).flatMap(([input, i]) => (i.bytesInOutput > 0 ? [input] : []))]),
  );
  writeFileSync(join(ROOT, CLI_OUTPUTS), `${JSON.stringify(outputs)}\n`);
  return { entry: `${CLI_BUILD}/cli/start.mjs`, inputs: inputs.length };
}
