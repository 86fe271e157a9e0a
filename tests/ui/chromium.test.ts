import assert from "node:assert/strict";
import { test } from "node:test";
import { launchChromium } from "./chromium.ts";

test("a browser that cannot start fails the browser test with the reason and what installs it", async () => {
  await assert.rejects(launchChromium("/nonexistent/chromium"), /^Error: headless Chromium \(\/nonexistent\/chromium\) cannot start: .*; the browser test needs it \(npm run setup installs it\)$/);
});
