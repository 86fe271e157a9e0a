import { citationMarker, type CorpusDocument } from "./corpusDocument.ts";

export interface Passage {
  doc_id: string;
  section: string;
  heading: string;
  passage: string;
  citation: string;
  /** The notes its "(n)" markers refer to; present only when it has some. */
  footnotes?: Footnote[];
}

export interface Footnote {
  marker: string;
  text: string;
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
      const passage = isTable(block) ? tableExcerpt(block, needle) : block.trim();
      const footnotes = footnotesOf(doc, passage);
      return {
        doc_id: doc.id,
        section: section.id,
        heading: section.heading,
        passage,
        citation: citationMarker(doc.id, section.id),
        ...(footnotes.length ? { footnotes } : {}),
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

// A quote that ends in "(5)" without the note it points to drops part of what the document says.
function footnotesOf(doc: CorpusDocument, passage: string): Footnote[] {
  const markers = new Set([...passage.matchAll(/(?<!^)\((\d{1,2})\)/g)].map((m) => `(${m[1]})`));
  const notes: Footnote[] = [];
  for (const marker of markers) {
    for (const section of doc.sections) {
      const note = section.text.split(/\n\s*\n/).map((b) => b.trim()).find((b) => b.startsWith(`${marker} `));
      if (note) {
        notes.push({ marker, text: note, citation: citationMarker(doc.id, section.id) });
        break;
      }
    }
  }
  return notes;
}
