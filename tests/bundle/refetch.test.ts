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
  const server = createServer((req, res) => res.end(req.url === "/same" ? "as recorded" : "rewritten since"));
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  test("unchanged, changed and unreachable, each said; a non-web locator is not fetched", async () => {
    const dead = `http://127.0.0.1:${await closedPort()}/gone`;
    const out = await refetchSources([
      completed([
        { url: `${base}/same`, raw: "as recorded" },
        { url: `${base}/moved`, raw: "as recorded" },
        { url: dead, raw: "x" },
        { url: `blob:${sha("x")}`, raw: "x" },
      ]),
    ]);
    assert.deepEqual(out.map((r) => [r.url, r.state]), [
      [`${base}/same`, "unchanged"],
      [`${base}/moved`, "changed"],
      [dead, "unreachable"],
    ]);
    assert.match(out[1].detail!, new RegExp(`^HTTP 200, now ${sha("rewritten since")}$`));
  });
});
