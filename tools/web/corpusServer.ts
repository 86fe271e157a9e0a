import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, normalize } from "node:path";

export interface CorpusServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Requests served, by path: a test counts fetches with it. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A local HTTP server over the shared corpus, for offline runs and tests:
 * /web/<name>/ serves web/<name>/source.html (text/html), /pdf/<file> serves
 * pdf/<file> (application/pdf), /data/<file> serves data/<file> (CSV as
 * text/csv). Listens on 127.0.0.1 only. `background`: the server and its
 * connections do not keep the process alive (a host that serves runs for as
 * long as it lives, then exits).
 */
export async function serveCorpus(corpusDir: string, options: { background?: boolean } = {}): Promise<CorpusServer> {
  const hits = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://corpus").pathname);
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const file = fileFor(path);
    if (!file || normalize(file.path).startsWith("..")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not in the corpus");
      return;
    }
    try {
      const body = await readFile(join(corpusDir, file.path));
      res.writeHead(200, { "content-type": file.type, "content-length": body.byteLength }).end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" }).end("not in the corpus");
    }
  });
  if (options.background) server.on("connection", (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  if (options.background) server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function fileFor(path: string): { path: string; type: string } | null {
  const web = /^\/web\/([\w.-]+)\/?$/.exec(path);
  if (web) return { path: `web/${web[1]}/source.html`, type: "text/html; charset=utf-8" };
  const pdf = /^\/pdf\/([\w.-]+\.pdf)$/.exec(path);
  if (pdf) return { path: `pdf/${pdf[1]}`, type: "application/pdf" };
  const data = /^\/data\/([\w.-]+)$/.exec(path);
  if (data) return { path: `data/${data[1]}`, type: data[1]!.endsWith(".csv") ? "text/csv; charset=utf-8" : "application/octet-stream" };
  return null;
}

/** The corpus hosts' URLs (pages.corpus.test, docs.corpus.test, data.corpus.test) mapped to a corpus server; any other URL is fetched as it is. */
export function corpusUrlMap(origin: string): (url: string) => string | undefined {
  return (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    if (u.hostname === "pages.corpus.test") return `${origin}/web${u.pathname}${u.search}`;
    if (u.hostname === "docs.corpus.test") return `${origin}/pdf${u.pathname}${u.search}`;
    if (u.hostname === "data.corpus.test") return `${origin}/data${u.pathname}${u.search}`;
    return undefined;
  };
}
