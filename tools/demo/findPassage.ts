import { citationMarker, type CorpusDocument } from "./corpusDocument.ts";

export interface Passage {
  doc_id: string;
  section: string;
  heading: string;
  passage: string;
  citation: string;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * The first paragraph (or, in a table, the header plus matching rows) whose text
 * contains the phrase, ignoring case and line wrapping. The passage itself is
 * returned exactly as written so it can be quoted.
 */
export function findPassage(doc: CorpusDocument, contains: string): Passage | null {
  const needle = squash(contains);
  for (const section of doc.sections) {
    for (const block of section.text.split(/\n\s*\n/)) {
      if (!squash(block).includes(needle)) continue;
      return {
        doc_id: doc.id,
        section: section.id,
        heading: section.heading,
        passage: isTable(block) ? tableExcerpt(block, needle) : block.trim(),
        citation: citationMarker(doc.id, section.id),
      };
    }
  }
  return null;
}

function isTable(block: string): boolean {
  return block.trim().split("\n").every((l) => l.trim().startsWith("|"));
}

// A whole table is rarely the evidence; the header gives the matching rows their meaning.
function tableExcerpt(block: string, needle: string): string {
  const [header, rule, ...rows] = block.trim().split("\n");
  const matching = rows.filter((r) => squash(r).includes(needle));
  return [header, rule, ...(matching.length ? matching : rows)].join("\n");
}
