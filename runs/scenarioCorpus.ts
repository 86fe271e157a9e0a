import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../core/errors.ts";
import { type SearchBackend, corpusSearchBackend, corpusUrlMap, serveCorpus } from "../tools/index.ts";

/** The shared corpus beside the repository (`../shared/corpus`), which offline scenarios fetch and search. */
export const SHARED_CORPUS_DIR = fileURLToPath(new URL("../../shared/corpus/", import.meta.url));

/** How offline runs reach the corpus hosts: a URL map onto the local server, and a search over its pages. */
export interface ScenarioCorpus {
  dir: string;
  mapUrl: (url: string) => string | undefined;
  search: SearchBackend;
}

const started = new Map<string, Promise<ScenarioCorpus>>();

/**
 * The local corpus server, started once per process on first use and kept for
 * the process's life without keeping it alive. Only the corpus hosts
 * (pages/docs/data.corpus.test) are mapped to it, so loopback is reached
 * through that mapping alone; every other address keeps web_fetch's refusals.
 */
export function scenarioCorpus(dir: string = SHARED_CORPUS_DIR): Promise<ScenarioCorpus> {
  if (!existsSync(dir)) {
    return Promise.reject(new ConfigError(`the shared corpus that offline scenarios read is missing: expected it at ${dir} (../shared/corpus beside the repository)`));
  }
  let corpus = started.get(dir);
  if (!corpus) {
    corpus = serveCorpus(dir, { background: true }).then(
      (server) => ({ dir, mapUrl: corpusUrlMap(server.origin, server.hosts), search: corpusSearchBackend(dir) }),
      (e: unknown) => {
        started.delete(dir);
        throw e;
      },
    );
    started.set(dir, corpus);
  }
  return corpus;
}

/**
 * The corpus an offline scenario run is hosted with: required by a scenario
 * that reads it (a clear error when it is missing), served when present for any
 * other, and none otherwise (the demo's own corpus tools need no server).
 */
export async function offlineCorpus(needed: boolean, dir: string = SHARED_CORPUS_DIR): Promise<ScenarioCorpus | null> {
  if (!needed && !existsSync(dir)) return null;
  return scenarioCorpus(dir);
}
