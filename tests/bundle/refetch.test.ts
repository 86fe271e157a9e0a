import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { refetchSources } from "../../bundle/refetchSources.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { closedPort } from "../cli/ariadneProcess.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** A tool outcome that read these URLs, with the raw hashes recorded then. */
function completed(sources: { url: string; raw: string }[]): RecordedEvent {
  return {
    type: "tool_completed",
    data: {
      toolUseId: "t1",
      tool: "web_fetch",
      output: "",
      artifacts: [],
      sources: sources.map((s) => ({ kind: "web_page", url: s.url, contentType: "text/html", fetchedAt: "2026-12-01T00:00:00.000Z", rawSha256: sha(s.raw), textSha256: sha(s.raw), bytes: s.raw.length })),
    },
  } as unknown as RecordedEvent;
}

describe("verify --refetch fetches each web source again and compares its bytes", () => {
  let base: string;
  let secretHits = 0;
  const server = createServer((req, res) => {
    if (req.url === "/secret") secretHits++;
    if (req.url === "/hop") return void res.writeHead(302, { location: `http://[::ffff:7f00:1]:${(server.address() as AddressInfo).port}/secret` }).end();
    res.end(req.url === "/same" ? "as recorded" : "rewritten since");
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test("unchanged, changed and unreachable, each said; a non-web locator is not fetched", async () => {
    const dead = `http://127.0.0.1:${await closedPort()}/gone`;
    const out = await refetchSources(
      [completed([
        { url: `${base}/same`, raw: "as recorded" },
        { url: `${base}/moved`, raw: "as recorded" },
        { url: dead, raw: "x" },
        { url: `blob:${sha("x")}`, raw: "x" },
      ])],
      { allowLoopback: true },
    );
    assert.deepEqual(out.map((r) => [r.url, r.state]), [
      [`${base}/same`, "unchanged"],
      [`${base}/moved`, "changed"],
      [dead, "unreachable"],
    ]);
    assert.match(out[1].detail!, new RegExp(`^HTTP 200, now ${sha("rewritten since")}$`));
  });

  test("a bundle is hostile input: its URLs are fetched under the address policy, loopback and private refused, redirects checked", async () => {
    const port = (server.address() as AddressInfo).port;
    const urls = [`http://[::ffff:127.0.0.1]:${port}/secret`, `http://2130706433:${port}/secret`, "http://169.254.169.254/latest/meta-data/", `http://127.0.0.1:${port}/hop`];
    const out = await refetchSources([completed(urls.map((url) => ({ url, raw: "x" })))]);
    assert.deepEqual(out.map((r) => r.state), ["refused", "refused", "refused", "refused"]);
    assert.match(out[0]!.detail!, /is this machine/);
    assert.match(out[2]!.detail!, /private network/);
    // Loopback allowed (as ARIADNE_ALLOW_LOOPBACK allows it), the redirect's target is still checked.
    const hop = await refetchSources([completed([{ url: `${base}/hop`, raw: "x" }])], { allowLoopback: true });
    assert.equal(hop[0]!.state, "changed", "the redirect to a loopback spelling is followed only because loopback is allowed");
    assert.equal(secretHits, 1, "nothing reached the local service but the allowed fetch");
  });
});
