export { computeOverlap, readHoldings, type Holding, type HoldingsList, type OverlapReport } from "./computeOverlap.ts";
export { citationMarker, parseCorpusDocument, type CorpusDocument, type CorpusSection } from "./corpusDocument.ts";
export { DEMO_TOOLS, createCorpusTools } from "./corpusTools.ts";
export { findPassage, type Passage } from "./findPassage.ts";
export { DEFAULT_CORPUS_DIR, findDocument, loadCorpus } from "./loadCorpus.ts";
export { markdownTables, type MarkdownTable } from "./markdownTables.ts";
export { renderDocument } from "./renderDocument.ts";
export { searchCorpus, searchTerms, type SearchHit } from "./searchCorpus.ts";
