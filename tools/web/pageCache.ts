import type { SourceRecord } from "../../sources/types.ts";

/** A page as fetched once in a run: its source (bytes and text are blobs) and what the result shows besides the text. */
export interface CachedPage {
  source: SourceRecord;
  title: string;
  /** URLs the page showed (its own, after redirects, and its links). */
  links: string[];
  /** Set when the page is not text (a PDF): what to tell the model instead of a page. */
  notice?: string;
}

/** Runs remembered at once; an older run's pages are fetched again if it asks (it is rarely still running). */
const MAX_RUNS = 64;

/**
 * The pages a run has fetched, by normalised URL, so the same page asked for
 * under two spellings (or twice, or page by page with offset) is fetched once.
 * Holds promises, so two calls at once share one fetch; a failed fetch is forgotten.
 */
export class PageCache {
  readonly #runs = new Map<string, Map<string, Promise<CachedPage>>>();

  fetchOnce(runId: string, key: string, fetchPage: () => Promise<CachedPage>): Promise<CachedPage> {
    let pages = this.#runs.get(runId);
    if (!pages) {
      if (this.#runs.size >= MAX_RUNS) this.#runs.delete(this.#runs.keys().next().value!);
      this.#runs.set(runId, (pages = new Map()));
    }
    let page = pages.get(key);
    if (!page) {
      page = fetchPage();
      pages.set(key, page);
      page.catch(() => pages.delete(key));
    }
    return page;
  }
}
