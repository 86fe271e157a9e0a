import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type MiniSearch from "minisearch";
import { readManifest } from "./corpusManifest.ts";
import { extractReadable } from "./extractReadable.ts";
import type { SearchBackend, SearchHit } from "./searchBackend.ts";

export interface IndexedPage {
  id: string;
  url: string;
  title: string;
  text: string;
}

/**
 * Offline search over the corpus pages (web/manifest.jsonl): a MiniSearch index
 * of each page's title and extracted text, built once on first use. Hits carry
 * the corpus URL (https://pages.corpus.test/<name>/), which web_fetch reads.
 */
export function corpusSearchBackend(corpusDir: string): SearchBackend {
  return pagesSearchBackend(join(corpusDir, "web"));
}

/**
 * The same over any folder of pages with a manifest.jsonl (a scenario corpus:
 * scenarios/corpora/hostile/); hits carry each page's manifest URL.
 */
export function pagesSearchBackend(folder: string): SearchBackend {
  return indexedSearchBackend(async () => {
    const pages: IndexedPage[] = [];
    for (const entry of await readManifest(folder)) {
      const html = await readFile(join(folder, entry.file), "utf8");
      const page = await extractReadable(html, entry.url);
      pages.push({ id: entry.url, url: entry.url, title: page.title || entry.title || entry.url, text: page.text });
    }
    return pages;
  });
}

/**
 * A search backend over documents `load` gives (url, title, text), indexed
 * once on first use with MiniSearch (title boosted, prefix and fuzzy matching).
 */
export function indexedSearchBackend(load: () => Promise<IndexedPage[]>): SearchBackend {
  let index: Promise<{ search: MiniSearch<IndexedPage>; pages: Map<string, IndexedPage> }> | undefined;
  const build = async () => {
    const pages = new Map((await load()).map((p) => [p.id, p]));
    const { default: MiniSearchIndex } = await import("minisearch");
    const search = new MiniSearchIndex<IndexedPage>({ fields: ["title", "text"], storeFields: ["url", "title"], searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.15 } });
    search.addAll([...pages.values()]);
    return { search, pages };
  };
  return {
    name: "corpus",
    async search(query, limit) {
      index ??= build().catch((e) => {
        index = undefined;
        throw e;
      });
      const { search, pages } = await index;
      const hits = search
        .search(query)
        .slice(0, limit)
        .map((r): SearchHit => {
          const page = pages.get(r.id as string)!;
          return { title: page.title, url: page.url, snippet: snippetOf(page.text, r.terms) };
        });
      return { hits };
    },
  };
}

/** About 240 characters around the first place a matched term occurs, on one line. */
function snippetOf(text: string, terms: string[]): string {
  const lower = text.toLowerCase();
  const at = Math.min(...terms.map((t) => lower.indexOf(t.toLowerCase())).filter((i) => i >= 0), Number.MAX_SAFE_INTEGER);
  const start = at === Number.MAX_SAFE_INTEGER ? 0 : Math.max(0, at - 80);
  const piece = text.slice(start, start + 240).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${piece}${start + 240 < text.length ? "…" : ""}`;
}
