import { answerClientError } from "./middleware/clientErrors.ts";

/** A listening HTTP server, whichever runtime hosts it. */
export interface RunningServer {
  port: number;
  host: string;
  /** Stops accepting connections; open ones (live streams) are cut after `graceMs`. */
  close(graceMs?: number): Promise<void>;
}

type Fetch = (request: Request) => Response | Promise<Response>;

declare const Deno: {
  serve(
    options: { port: number; hostname: string; signal: AbortSignal; onListen?: (addr: { port: number; hostname: string }) => void },
    handler: Fetch,
  ): { finished: Promise<void>; shutdown(): Promise<void> };
};

/**
 * Serves the app's fetch handler: Deno.serve under Deno, @hono/node-server
 * under Node. Port 0 picks a free port (tests), reported back.
 */
export async function startServer(fetch: Fetch, options: { port: number; host: string }): Promise<RunningServer> {
  if ("Deno" in globalThis) return startDeno(fetch, options);
  const { serve } = await import("@hono/node-server");
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: options.port, hostname: options.host }, (info) =>
      resolve({
        port: info.port,
        host: options.host,
        close: (graceMs = 5_000) =>
          new Promise<void>((done) => {
            const s = server as import("node:http").Server;
            s.close(() => done());
            s.closeIdleConnections();
            setTimeout(() => s.closeAllConnections(), graceMs).unref();
          }),
      }),
    );
    server.once("error", reject);
    // Headers over Node's limit and unparsable requests: a problem, not a bare status line.
    server.on("clientError", answerClientError);
  });
}

function startDeno(fetch: Fetch, options: { port: number; host: string }): Promise<RunningServer> {
  const abort = new AbortController();
  return new Promise((resolve) => {
    const server = Deno.serve(
      {
        port: options.port,
        hostname: options.host,
        signal: abort.signal,
        onListen: (addr) =>
          resolve({
            port: addr.port,
            host: options.host,
            async close(graceMs = 5_000) {
              const timer = setTimeout(() => abort.abort(), graceMs);
              await server.shutdown();
              clearTimeout(timer);
            },
          }),
      },
      fetch,
    );
  });
}
