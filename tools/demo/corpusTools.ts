import { z } from "zod";
import { defineTool, type Tool } from "../defineTool.ts";
import { ToolError } from "../toolErrors.ts";
import { computeOverlap, readHoldings } from "./computeOverlap.ts";
import { findPassage } from "./findPassage.ts";
import { DEFAULT_CORPUS_DIR, findDocument, loadCorpus } from "./loadCorpus.ts";
import { renderDocument } from "./renderDocument.ts";
import { searchCorpus, searchTerms } from "./searchCorpus.ts";

const docId = z.string().min(1).describe('Document id as returned by search_corpus, e.g. "adiv-factsheet".');

/**
 * The demo tools' names: offered only to the offline scenarios, never to a real
 * question's run (runs/runTools.ts realToolNames), whose claims must rest on the real web.
 */
export const DEMO_TOOLS: readonly string[] = ["search_corpus", "read_document", "quote_passage", "compute_overlap"];

/** The four read-only teaching tools over the synthetic corpus; `dir` lets tests use a copy. */
export function createCorpusTools(dir: string = DEFAULT_CORPUS_DIR): Tool[] {
  const searchTool = defineTool({
    name: "search_corpus",
    description:
      "Search the document corpus by keywords. Returns ranked document ids with titles, the best-matching section, its citation marker and a snippet. Snippets only show where to look: read or quote the passage before relying on it.",
    input: z.object({
      query: z.string().min(1).describe("Keywords, e.g. 'ADIV ongoing charge effective date'."),
      limit: z.number().int().min(1).max(20).optional().describe("Maximum results, default 5."),
    }),
    effect: "read_only",
    capabilities: ["private_data"],
    async run({ query, limit }) {
      if (searchTerms(query).length === 0) throw new ToolError(`The query "${query}" has no searchable words; use content words such as a name, ticker or term.`);
      const results = searchCorpus(await loadCorpus(dir), query, limit ?? 5);
      return JSON.stringify({ query, results });
    },
  });

  const readTool = defineTool({
    name: "read_document",
    description:
      "Read a document, or one section of it. Each section starts with its citation marker, e.g. [[corpus:adiv-prospectus#p12]]; cite with those markers.",
    input: z.object({
      doc_id: docId,
      section: z.string().min(1).optional().describe('Section anchor such as "fees" or "p17"; omit to read the whole document.'),
    }),
    effect: "read_only",
    capabilities: ["private_data"],
    async run({ doc_id, section }) {
      return renderDocument(findDocument(await loadCorpus(dir), doc_id), section);
    },
  });

  const quoteTool = defineTool({
    name: "quote_passage",
    description:
      "Return the exact passage of a document that contains a phrase (case and line breaks ignored), with its section and citation marker, and the text of any footnotes its (n) markers refer to. For tables, returns the header and matching rows.",
    input: z.object({
      doc_id: docId,
      contains: z.string().min(3).max(300).describe("A phrase that occurs in the passage."),
    }),
    effect: "read_only",
    capabilities: ["private_data"],
    async run({ doc_id, contains }) {
      const passage = findPassage(findDocument(await loadCorpus(dir), doc_id), contains);
      if (!passage) {
        throw new ToolError(`No passage in "${doc_id}" contains "${contains}". Try a shorter phrase, or read_document to see the text.`);
      }
      return JSON.stringify(passage);
    },
  });

  const overlapTool = defineTool({
    name: "compute_overlap",
    description:
      "Compute the weight overlap between a portfolio holdings list and an ETF holdings list from the corpus. Deterministic; returns inputs, method, result, units and limitations.",
    input: z.object({
      portfolio_doc: docId.describe('Document id of the portfolio holdings, e.g. "user-portfolio".'),
      etf_doc: docId.describe('Document id of the ETF holdings, e.g. "adiv-holdings".'),
    }),
    effect: "read_only",
    capabilities: ["private_data"],
    async run({ portfolio_doc, etf_doc }) {
      const corpus = await loadCorpus(dir);
      const holdings = (id: string) => {
        const list = readHoldings(findDocument(corpus, id));
        if (list) return list;
        const withHoldings = corpus.filter((d) => readHoldings(d)).map((d) => d.id);
        throw new ToolError(
          `Document "${id}" has no holdings table (columns Ticker and Weight (%)). Documents with holdings: ${withHoldings.join(", ")}.`,
        );
      };
      return JSON.stringify(computeOverlap(holdings(portfolio_doc), holdings(etf_doc)));
    },
  });

  return [searchTool, readTool, quoteTool, overlapTool];
}
