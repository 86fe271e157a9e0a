import { existsSync } from "node:fs";
import { createRequire } from "node:module";

/** Debian's chromium package. */
export const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/**
 * Chromium's executable: Debian's package, else the build playwright-core
 * downloads (`npx playwright-core install chromium`, which npm run setup uses
 * on Ubuntu, whose chromium package is a snap); null when neither is there.
 */
export function findChromium(): string | null {
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  try {
    const { chromium } = createRequire(import.meta.url)("playwright-core") as { chromium: { executablePath(): string } };
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : null;
  } catch {
    return null;
  }
}
