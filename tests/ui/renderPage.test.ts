import assert from "node:assert/strict";
import { test } from "node:test";
import { auditPageData } from "../../ui/auditData.ts";
import { renderAuditPage } from "../../ui/AuditPage.tsx";

test("text from a run (a hostile page's quote, a problem) is escaped, never markup; a run without answer or seal says so", () => {
  const hostile = `</code><script>alert(1)</script><img src=x onerror=alert(2)>`;
  const html = renderAuditPage(auditPageData({ runId: "run-1", events: [], blob: () => null, verdict: { intact: false, problem: hostile, checked: "nothing", rootHash: null, keyId: null } }));
  assert.doesNotMatch(html, /<script|<img/i);
  assert.ok(html.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
  assert.match(html, /data-intact="false"/);
  assert.match(html, /The run has no answer\./);
  assert.match(html, /root hash <code id="root-hash">none \(not sealed\)<\/code>/);
});
