import { type Browser, chromium } from "playwright-core";
import { DEBIAN_CHROMIUM, findChromium } from "../../setup/findChromium.ts";

/** Debian's chromium package, or playwright's build on Ubuntu; npm run setup installs it. */
export const CHROMIUM = findChromium() ?? DEBIAN_CHROMIUM;

/**
 * Headless Chromium, or why not: in CI (CI=true) a browser that cannot start
 * fails the test, elsewhere the test is skipped with the reason.
 */
export async function launchChromium(executablePath = CHROMIUM, ci = process.env.CI === "true"): Promise<{ browser: Browser } | { skip: string }> {
  try {
    return { browser: await chromium.launch({ executablePath }) };
  } catch (e) {
    const reason = `headless Chromium (${executablePath}) cannot start: ${(e as Error).message.split("\n")[0]}`;
    if (ci) throw new Error(`${reason}; CI must run the browser test (npm run setup installs it)`);
    return { skip: reason };
  }
}
