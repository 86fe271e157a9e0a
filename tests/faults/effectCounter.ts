import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP endpoint that counts effects by (run, executor, label): the
 * world outside the log. A GET (?run=&executor=) is a read: it answers how many
 * effects that executor recorded, and is counted as a read by (run, executor).
 */
export async function startEffectCounter() {
  const counts = new Map<string, number>();
  const reads = new Map<string, number>();
  const server = createServer((req, res) => {
    if (req.method === "GET") {
      const q = new URL(req.url ?? "/", "http://counter").searchParams;
      const key = `${q.get("run")}/${q.get("executor")}`;
      reads.set(key, (reads.get(key) ?? 0) + 1);
      const effects = [...counts].filter(([k]) => k.startsWith(`${key}/`)).reduce((n, [, c]) => n + c, 0);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ effects }));
      return;
    }
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      try {
        const { runId, executorId, label } = JSON.parse(body) as Record<string, string>;
        const key = `${runId}/${executorId}/${label}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/effects`,
    /** Effects of one run, by executor/label. */
    of: (runId: string) => [...counts].filter(([k]) => k.startsWith(`${runId}/`)).map(([k, n]) => ({ key: k, n })),
    /** Reads of one run, by executor. */
    readsOf: (runId: string) => [...reads].filter(([k]) => k.startsWith(`${runId}/`)).map(([k, n]) => ({ key: k, n })),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
