import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One answer of a provider-shaped server: a status, a body (JSON or raw text) and headers; `delayMs` holds it back (a timeout). */
export interface ProviderAnswer {
  status?: number;
  body?: unknown;
  /** Sent as it is, not as JSON (malformed JSON). */
  raw?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface ProviderRequestSeen {
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

export interface SearchProviderServer {
  origin: string;
  requests: ProviderRequestSeen[];
  /** Answers used first, one per request; then `answer(query)`. */
  enqueue(...answers: ProviderAnswer[]): void;
  close(): Promise<void>;
}

/**
 * A search provider on loopback, shaped like SearXNG (`GET /search?q=…&format=json`)
 * and Brave (`GET /res/v1/web/search?q=…`) at once: it replays the answers it is
 * given, so tests exercise the real adapters, fetch path and error handling.
 */
export async function startSearchProviderServer(answer: (query: string, path: string) => ProviderAnswer): Promise<SearchProviderServer> {
  const queue: ProviderAnswer[] = [];
  const requests: ProviderRequestSeen[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push({ path: url.pathname, query: url.searchParams, headers: { ...req.headers } });
    if (url.pathname !== "/search" && url.pathname !== "/res/v1/web/search") return res.writeHead(404).end("not found");
    const a = queue.shift() ?? answer(url.searchParams.get("q") ?? "", url.pathname);
    const send = () => {
      if (res.destroyed) return;
      res.writeHead(a.status ?? 200, { "content-type": "application/json", ...a.headers });
      res.end(a.raw ?? JSON.stringify(a.body ?? {}));
    };
    if (a.delayMs) setTimeout(send, a.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...answers) => void queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
