import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Server, type Socket, createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { ToolError } from "../../tools/index.ts";
import { fetchLimited } from "../../tools/web/fetchLimited.ts";

/**
 * A server at the socket level, so it can do what a kept-alive connection's
 * server does when its timeout races the next request: close the connection
 * (reset, or an orderly close) once the request is in, without answering.
 */
type Answer = "reset" | "close" | "ok";

async function socketServer(answers: (n: number) => Answer): Promise<{ origin: string; requests: () => number; server: Server }> {
  let n = 0;
  const server = createServer((socket: Socket) => {
    socket.once("data", () => {
      const answer = answers(++n);
      if (answer === "reset") socket.resetAndDestroy();
      else if (answer === "close") socket.destroy();
      else socket.end("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 8\r\nconnection: close\r\n\r\nthe page");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => n, server };
}

// Both ways a URL is fetched: the pinned fetch of the open web, and the platform's fetch of a mapped corpus host.
const ways = {
  "a page on the open web": (origin: string) => ({ url: `${origin}/page`, limits: { allowLoopback: true } }),
  "a mapped corpus page": (origin: string) => ({ url: "https://pages.corpus.test/page", limits: { mapUrl: (u: string) => u.replace("https://pages.corpus.test", origin) } }),
};

for (const [way, target] of Object.entries(ways)) {
  describe(`a connection closed before the answer (${way})`, () => {
    const servers: Server[] = [];
    const start = async (answers: (n: number) => Answer) => {
      const s = await socketServer(answers);
      servers.push(s.server);
      return { ...target(s.origin), requests: s.requests };
    };
    after(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

    for (const closed of ["reset", "close"] as const) {
      test(`${closed === "reset" ? "reset" : "closed"} once: the GET is asked again and the page read`, async () => {
        const { url, limits, requests } = await start((n) => (n === 1 ? closed : "ok"));
        const fetched = await fetchLimited(url, limits);
        assert.equal(new TextDecoder().decode(fetched.bytes), "the page");
        assert.equal(requests(), 2);
      });
    }

    test("reset every time: asked twice, not more, and the error names what happened", async () => {
      const { url, limits, requests } = await start(() => "reset");
      await assert.rejects(fetchLimited(url, limits), (e: Error) => e instanceof ToolError && /Could not fetch .*(ECONNRESET|reset by peer)/i.test(e.message));
      assert.equal(requests(), 2);
    });
  });
}
