import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../core/errors.ts";
import type { Scenario } from "../../scenarios/index.ts";
import { type CorpusServer, type SearchBackend, corpusFilesSearchBackend, corpusSearchBackend, corpusUrlMap, pagesSearchBackend, serveCorpus } from "../../tools/index.ts";

/** The repository's corpus of real pages, PDFs and data (`corpus/`, see its README), which offline scenarios fetch and search. */
export const CORPUS_DIR = fileURLToPath(new URL("../../corpus/", import.meta.url));

/** The repository's scenarios folder: its corpora (scenarios/corpora/<name>) are served beside the corpus. */
export const SCENARIOS_DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));

/** How offline runs reach the corpus hosts: a URL map onto the local server, and a search over its pages. */
export interface ScenarioCorpus {
  dir: string;
  mapUrl: (url: string) => string | undefined;
  search: SearchBackend;
}

const servers = new Map<string, Promise<CorpusServer>>();
const searches = new Map<string, SearchBackend>();

/**
 * The local corpus server, started once per process on first use and kept for
 * the process's life without keeping it alive. Only the corpus hosts (the
 * corpus's and the scenario corpora's) are mapped to it, so loopback is
 * reached through that mapping alone; every other address keeps web_fetch's
 * refusals. `searchPages` names the scenario corpus web_search searches
 * (absent: the corpus's pages).
 */
export async function scenarioCorpus(dir: string = CORPUS_DIR, searchPages?: string): Promise<ScenarioCorpus> {
  let server = servers.get(dir);
  if (!server) {
    server = serveCorpus(dir, { scenariosDir: SCENARIOS_DIR, background: true });
    servers.set(dir, server);
    server.catch(() => servers.delete(dir));
  }
  const { origin, hosts } = await server;
  // A search index is built once and kept: building it reads and extracts every page.
  const key = searchPages ? `scenario:${searchPages}` : `shared:${dir}`;
  let search = searches.get(key);
  if (!search) {
    search = searchPages ? pagesSearchBackend(join(SCENARIOS_DIR, "corpora", searchPages)) : corpusSearchBackend(dir);
    searches.set(key, search);
  }
  return { dir, mapUrl: corpusUrlMap(origin, hosts), search };
}

/**
 * The corpus an offline scenario run is hosted with. A scenario that reads the
 * corpus is refused, saying where it looked, when it is missing (a
 * ARIADNE_CORPUS_DIR naming no corpus); the
 * scenario corpora ship with the repository, so any other is always served.
 */
export async function offlineCorpus(scenario: Pick<Scenario, "needsSharedCorpus" | "searchPages">, dir: string = CORPUS_DIR): Promise<ScenarioCorpus> {
  if (scenario.needsSharedCorpus && !existsSync(dir)) {
    throw new ConfigError(`the corpus that offline scenarios read is missing: expected it at ${dir} (the repository's corpus/, or the folder ARIADNE_CORPUS_DIR names)`);
  }
  return scenarioCorpus(dir, scenario.searchPages);
}

/**
 * A corpus folder of the shared corpus's layout (web/, pdf/, data/) as the
 * baseline researcher and the evaluation's suites read it: served on loopback
 * under its corpus hosts, and searched over its pages, PDFs and data files
 * (corpusFilesSearchBackend). Refused, naming the folder, when it has none of them.
 */
export async function researchCorpus(dir: string = CORPUS_DIR): Promise<ScenarioCorpus> {
  if (!["web", "pdf", "data"].some((d) => existsSync(join(dir, d)))) {
    throw new ConfigError(`the corpus the baseline researcher reads is missing: expected web/, pdf/ or data/ in ${dir} (set ARIADNE_CORPUS_DIR)`);
  }
  const served = await scenarioCorpus(dir);
  let search = searches.get(`files:${dir}`);
  if (!search) {
    search = corpusFilesSearchBackend(dir);
    searches.set(`files:${dir}`, search);
  }
  return { ...served, search };
}
