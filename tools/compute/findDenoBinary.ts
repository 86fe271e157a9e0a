import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * The deno executable the npm package `deno` installed (node_modules/deno/deno),
 * or null when it is not installed. Passing ComputeOptions.denoPath skips this.
 */
export function findDenoBinary(): string | null {
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve("deno/package.json"));
    const binary = path.join(dir, process.platform === "win32" ? "deno.exe" : "deno");
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}
