import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolError } from "../toolErrors.ts";
import { parseCorpusDocument, type CorpusDocument } from "./corpusDocument.ts";

/** The synthetic teaching corpus ships in tools/corpus/. */
export const DEFAULT_CORPUS_DIR = fileURLToPath(new URL("../corpus/", import.meta.url));

/** Every document, sorted by id. Read on each call: the corpus is small and then never stale. */
export async function loadCorpus(dir: string = DEFAULT_CORPUS_DIR): Promise<CorpusDocument[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".md")).sort();
  return Promise.all(
    files.map(async (f) => parseCorpusDocument(f.slice(0, -3), await readFile(join(dir, f), "utf8"))),
  );
}

/** Finds a document or fails with a message listing the ids that do exist. */
export function findDocument(corpus: readonly CorpusDocument[], docId: string): CorpusDocument {
  const doc = corpus.find((d) => d.id === docId);
  if (!doc) {
    throw new ToolError(`No document "${docId}" in the corpus. Known documents: ${corpus.map((d) => d.id).join(", ")}.`);
  }
  return doc;
}
