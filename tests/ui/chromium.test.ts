import assert from "node:assert/strict";
import { test } from "node:test";
import { launchChromium } from "./chromium.ts";

test("a browser that cannot start skips the browser test with the reason, and fails it in CI", async () => {
  const missing = "/nonexistent/chromium";
  const local = await launchChromium(missing, false);
  assert.ok("skip" in local);
  assert.match(local.skip, /^headless Chromium \(\/nonexistent\/chromium\) cannot start: /);
  await assert.rejects(launchChromium(missing, true), /cannot start: .*; CI must run the browser test/);
});
