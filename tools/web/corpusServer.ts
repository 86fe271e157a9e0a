import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, resolve, sep } from "node:path";

/**
 * One host of the offline web and the folder it is read from. `pages`:
 * `https://<host>/<name>/` is `<dir>/<name>/source.html`; `files`:
 * `https://<host>/<file>` is `<dir>/<file>`, typed by its extension.
 */
export interface CorpusMount {
  host: string;
  dir: string;
  kind: "pages" | "files";
}

export interface CorpusServeOptions {
  /**
   * The repository's `scenarios/` folder: its corpora are served too,
   * hostile.corpus.test (corpora/hostile), briefing.corpus.test (corpora/briefing),
   * etf.corpus.test (corpora/etf) and etf-files.corpus.test (corpora/etf/files).
   */
  scenariosDir?: string;
  /** The server and its connections do not keep the process alive (a host that serves runs for as long as it lives, then exits). */
  background?: boolean;
}

/**
 * The hosts a corpus server answers for: the shared corpus's pages
 * (pages.corpus.test → web/), PDFs (docs.corpus.test → pdf/) and data files
 * (data.corpus.test → data/), and with `scenariosDir` the scenario corpora.
 */
export function corpusMounts(corpusDir: string, options: CorpusServeOptions = {}): CorpusMount[] {
  const mounts: CorpusMount[] = [
    { host: "pages.corpus.test", dir: join(corpusDir, "web"), kind: "pages" },
    { host: "docs.corpus.test", dir: join(corpusDir, "pdf"), kind: "files" },
    { host: "data.corpus.test", dir: join(corpusDir, "data"), kind: "files" },
  ];
  if (options.scenariosDir) {
    mounts.push(
      { host: "hostile.corpus.test", dir: join(options.scenariosDir, "corpora", "hostile"), kind: "pages" },
      { host: "briefing.corpus.test", dir: join(options.scenariosDir, "corpora", "briefing"), kind: "pages" },
      { host: "etf.corpus.test", dir: join(options.scenariosDir, "corpora", "etf"), kind: "pages" },
      // The etf corpus's PDF and CSV files: a mount serves pages or files, never both.
      { host: "etf-files.corpus.test", dir: join(options.scenariosDir, "corpora", "etf", "files"), kind: "files" },
    );
  }
  return mounts;
}

/** Every host corpusMounts can serve: a URL on one of them never leaves this machine. */
export const CORPUS_HOSTS: readonly string[] = corpusMounts("", { scenariosDir: "." }).map((m) => m.host);

export interface CorpusServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** The hosts it serves (corpusUrlMap maps these to it). */
  readonly hosts: readonly string[];
  /** Requests served, by path on this server (`/<host>/<path>`): a test counts fetches with it. */
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A local HTTP server over the shared corpus (and, with `scenariosDir`, the
 * scenario corpora), for offline runs and tests. `/<host>/<path>` serves what
 * `https://<host>/<path>` names (see corpusMounts); anything else is a 404.
 * Listens on 127.0.0.1 only.
 */
export async function serveCorpus(corpusDir: string, options: CorpusServeOptions = {}): Promise<CorpusServer> {
  const mounts = new Map(corpusMounts(corpusDir, options).map((m) => [m.host, m]));
  const hits = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const raw = new URL(req.url ?? "/", "http://corpus").pathname;
    const path = safeDecode(raw);
    hits.set(path ?? raw, (hits.get(path ?? raw) ?? 0) + 1);
    const file = path === null ? null : fileFor(mounts, path);
    if (!file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not in the corpus");
      return;
    }
    try {
      const body = await readFile(file.path);
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
    hosts: [...mounts.keys()],
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const safeDecode = (path: string): string | null => {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
};

// One plain name: no slashes, and not "." or ".." (a name starts with a letter, digit or underscore).
const NAME = "[\\w][\\w.-]*";
const PAGE = new RegExp(`^/(${NAME})/?$`);
const FILE = new RegExp(`^/(${NAME})$`);

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".pdf": "application/pdf",
  ".csv": "text/csv; charset=utf-8",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
};

/** The file a server path names, checked to lie inside its mount's folder; null when none does. */
function fileFor(mounts: ReadonlyMap<string, CorpusMount>, path: string): { path: string; type: string } | null {
  const [, host, rest] = /^\/([^/]+)(\/.*)?$/.exec(path) ?? [];
  const mount = host === undefined ? undefined : mounts.get(host);
  if (!mount) return null;
  const name = (mount.kind === "pages" ? PAGE : FILE).exec(rest ?? "/")?.[1];
  if (!name) return null;
  const dir = resolve(mount.dir);
  const file = mount.kind === "pages" ? join(dir, name, "source.html") : join(dir, name);
  if (!file.startsWith(dir + sep)) return null;
  return { path: file, type: TYPES[extname(file).toLowerCase()] ?? "application/octet-stream" };
}

/**
 * URLs on the corpus hosts mapped to a corpus server (`https://<host>/<path>` →
 * `<origin>/<host>/<path>`), so the recorded URL stays the corpus URL; any other
 * URL is fetched as it is (undefined).
 */
export function corpusUrlMap(origin: string, hosts: readonly string[] = CORPUS_HOSTS): (url: string) => string | undefined {
  const served = new Set(hosts);
  return (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return undefined;
    }
    if (!/^https?:$/.test(u.protocol) || !served.has(u.hostname)) return undefined;
    return `${origin}/${u.hostname}${u.pathname}${u.search}`;
  };
}
