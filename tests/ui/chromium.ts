import { type Browser, chromium } from "playwright-core";
import { DEBIAN_CHROMIUM, findChromium } from "../../setup/findChromium.ts";

/** Debian's chromium package, or playwright's build on Ubuntu; npm run setup installs it. */
export const CHROMIUM = findChromium() ?? DEBIAN_CHROMIUM;

/**
 * Headless Chromium. A browser that cannot start fails the test, saying why and what installs it: Chromium is one
 * of the prerequisites `npm run setup` installs and `npm test` checks first, so it is never a reason to skip.
 */
export async function launchChromium(executablePath = CHROMIUM): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath });
  } catch (e) {
    throw new Error(`headless Chromium (${executablePath}) cannot start: ${(e as Error).message.split("\n")[0]}; the browser test needs it (npm run setup installs it)`);
  }
}
