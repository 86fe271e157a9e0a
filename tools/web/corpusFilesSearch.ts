import { readFile, readdir } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { extractPdfPages } from "../documents/extractPdfPages.ts";
import { type IndexedPage, indexedSearchBackend } from "./corpusSearch.ts";
import { readManifest } from "./corpusManifest.ts";
import { extractReadable } from "./extractReadable.ts";
import type { SearchBackend } from "./searchBackend.ts";

/**
 * Offline search over a whole corpus folder of the shared corpus's layout:
 * its pages (web/manifest.jsonl, https://pages.corpus.test/<name>/), its PDFs
 * (pdf/manifest.jsonl, https://docs.corpus.test/<file>, by their text layer)
 * and its data files (data/<file>, https://data.corpus.test/<file>, by their
 * text). Hits carry the URLs web_fetch reads them under. What the baseline
 * researcher and the evaluation's suites search, so a question about a PDF or
 * a table can find it as a page is found.
 */
export function corpusFilesSearchBackend(corpusDir: string): SearchBackend {
  return indexedSearchBackend(async () => {
    const docs: IndexedPage[] = [];
    const web = join(corpusDir, "web");
    if (existsSync(join(web, "manifest.jsonl"))) {
      for (const entry of await readManifest(web)) {
        const page = await extractReadable(await readFile(join(web, entry.file), "utf8"), entry.url);
        docs.push({ id: entry.url, url: entry.url, title: page.title || entry.title || entry.url, text: page.text });
      }
    }
    const pdf = join(corpusDir, "pdf");
    if (existsSync(join(pdf, "manifest.jsonl"))) {
      for (const entry of await readManifest(pdf)) {
        // A PDF that cannot be read is left out of the index; document_read says why when it is opened.
        const text = await extractPdfPages(new Uint8Array(await readFile(join(pdf, entry.file))))
          .then((r) => r.pages.map((p) => p.text).join("\n\n"))
          .catch(() => "");
        docs.push({ id: entry.url, url: entry.url, title: entry.title || entry.file, text });
      }
    }
    const data = join(corpusDir, "data");
    if (existsSync(data)) {
      for (const file of (await readdir(data)).filter((f) => /\.(csv|json|txt|md)$/i.test(f)).sort()) {
        const url = `https://data.corpus.test/${file}`;
        docs.push({ id: url, url, title: file, text: await readFile(join(data, file), "utf8") });
      }
    }
    return docs;
  });
}
