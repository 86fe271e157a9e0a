import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestWebServer {
  origin: string;
  hits: Map<string, number>;
  /** Every request's path and query, in order: what reached the server. */
  requests: string[];
  close(): Promise<void>;
}

/** A local web server for fetch tests; each route is a handler, every request counted by path. */
export async function startWebServer(routes: Record<string, (req: IncomingMessage, res: ServerResponse, match: RegExpExecArray) => void>): Promise<TestWebServer> {
  const hits = new Map<string, number>();
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? "/");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    for (const [pattern, handle] of Object.entries(routes)) {
      const match = new RegExp(`^${pattern}$`).exec(path);
      if (match) return handle(req, res, match);
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** An HTML page of `paragraphs` numbered paragraphs, each about 100 characters. */
export function longPage(paragraphs: number, title = "A long page"): string {
  const body = Array.from({ length: paragraphs }, (_, i) => `<p>Paragraph ${i + 1}: the quick brown fox jumps over the lazy dog, again and again, for the record.</p>`).join("\n");
  return `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`;
}
