import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Reread } from "../../checker/checkAnswer.ts";
import { sourceKey } from "../../checker/checkAnswer.ts";
import type { RunClaims, SourceRef } from "../../projections/claimTypes.ts";
import { type BlobStore, sha256Hex } from "../../sources/index.ts";
import type { FetchLimits } from "../../tools/web/fetchLimited.ts";
import { normalizeUrl } from "../../tools/web/normalizeUrl.ts";
import { readPage } from "../../tools/web/readPage.ts";
import { workspaceDirFor } from "../../tools/workspace/workspaceDirFor.ts";

const REREADS_AT_ONCE = 4;

/** Where sources are read again: the web as the run's web_fetch reached it, and the run's own blobs and workspaces. */
export interface SourceReaders {
  /** The web tools' limits and URL map (an offline run's corpus hosts map onto the local corpus server). */
  web: FetchLimits;
  blobs: BlobStore;
  /** `<workspaceRoot>/<runId>/<executorId>/` holds what read_file read. */
  workspaceRoot?: string;
  now?: () => Date;
}

/** Every source the answer's claims cite, once each, with the executor whose tool read it. */
function citedSources(claims: RunClaims): Map<string, { source: SourceRef; executorId: string }> {
  const out = new Map<string, { source: SourceRef; executorId: string }>();
  for (const c of claims.claims) {
    for (const f of c.findings) {
      const seen = [...f.toolCalls.flatMap((t) => t.sources), ...f.quotes.flatMap((q) => (q.source?.kind === "source" ? [q.source] : []))];
      for (const s of seen) if (!out.has(sourceKey(s.url, s.rawSha256))) out.set(sourceKey(s.url, s.rawSha256), { source: s, executorId: f.executorId });
    }
  }
  return out;
}

/** A blob store that keeps nothing beyond this check: what is read again is compared, not kept. */
function scratchBlobs(): BlobStore & { text(sha: string): string | null } {
  const held = new Map<string, Uint8Array>();
  return {
    async put(bytes) {
      const sha = sha256Hex(bytes);
      held.set(sha, bytes);
      return sha;
    },
    async get(sha) {
      return held.get(sha) ?? null;
    },
    text: (sha) => (held.has(sha) ? new TextDecoder().decode(held.get(sha)) : null),
  };
}

/**
 * Each cited source read again: a web page fetched over HTTP as web_fetch
 * fetches it (same limits, same URL map, same text extraction), a workspace
 * file reopened from the executor's folder, a blob reopened from the store.
 * Search results are not read again: they move by nature and no claim quotes them.
 */
export async function rereadSources(runId: string, claims: RunClaims, readers: SourceReaders): Promise<Map<string, Reread>> {
  const now = readers.now ?? (() => new Date());
  const read = async ([key, { source, executorId }]: [string, { source: SourceRef; executorId: string }]): Promise<[string, Reread]> => {
    const base = { url: source.url, kind: source.sourceKind, recordedRawSha256: source.rawSha256 };
    try {
      const r = await rereadOne(runId, source, executorId, readers);
      return [key, { ...base, rereadAt: now().toISOString(), ...r }];
    } catch (e) {
      return [key, { ...base, state: "unreachable", currentRawSha256: null, currentText: null, detail: (e as Error).message.split("\n")[0], rereadAt: now().toISOString() }];
    }
  };
  // A few at a time: a slow site waits out its own deadline without holding up the rest.
  const queue = [...citedSources(claims)];
  const out: [string, Reread][] = [];
  await Promise.all(Array.from({ length: Math.min(REREADS_AT_ONCE, queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) out.push(await read(next));
  }));
  // In the order the claims cite them, whatever order they finished in.
  const order = [...citedSources(claims).keys()];
  return new Map(out.sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)));
}

type Read = Pick<Reread, "state" | "currentRawSha256" | "currentText" | "detail">;

async function rereadOne(runId: string, source: SourceRef, executorId: string, readers: SourceReaders): Promise<Read> {
  if (source.sourceKind === "search_results") return { state: "not_reread", currentRawSha256: null, currentText: null, detail: "search results are not read again" };
  if (/^https?:\/\//i.test(source.url)) {
    const blobs = scratchBlobs();
    const page = await readPage(source.url, normalizeUrl(source.url) ?? source.url, { limits: readers.web, blobs, now: readers.now ?? (() => new Date()) });
    return { state: "read", currentRawSha256: page.source.rawSha256, currentText: blobs.text(page.source.textSha256) };
  }
  if (source.url.startsWith("blob:")) {
    const bytes = await readers.blobs.get(source.url.slice("blob:".length));
    if (!bytes) return { state: "unreachable", currentRawSha256: null, currentText: null, detail: `blob ${source.url.slice(5, 17)}… is not in the store` };
    return { state: "read", currentRawSha256: sha256Hex(bytes), currentText: new TextDecoder().decode(bytes) };
  }
  if (source.url.startsWith("workspace:")) {
    if (!readers.workspaceRoot) return { state: "unreachable", currentRawSha256: null, currentText: null, detail: "no workspace root to reopen it from" };
    const dir = workspaceDirFor(readers.workspaceRoot, runId, executorId);
    const file = path.resolve(dir, source.url.slice("workspace:".length));
    // A path recorded in the log is not trusted to stay inside the executor's folder.
    if (!file.startsWith(dir + path.sep)) return { state: "unreachable", currentRawSha256: null, currentText: null, detail: "its path leaves the executor's workspace" };
    const bytes = new Uint8Array(await readFile(file));
    return { state: "read", currentRawSha256: sha256Hex(bytes), currentText: new TextDecoder().decode(bytes) };
  }
  return { state: "unreachable", currentRawSha256: null, currentText: null, detail: `no way to read ${source.url.split(":")[0]}: sources again` };
}
