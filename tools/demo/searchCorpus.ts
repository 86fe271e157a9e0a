import { citationMarker, type CorpusDocument, type CorpusSection } from "./corpusDocument.ts";

export interface SearchHit {
  doc_id: string;
  title: string;
  score: number;
  section: string;
  citation: string;
  snippet: string;
}

const STOPWORDS = new Set(["a", "an", "and", "are", "as", "at", "by", "for", "from", "in", "is", "it", "of", "on", "or", "the", "to", "with", "what", "which"]);

export function searchTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return [...new Set(words.filter((w) => !STOPWORDS.has(w)))];
}

/**
 * Plain term scoring, deterministic: documents matching more distinct terms rank
 * first, then by capped term counts, then by id. Good enough to point a model at
 * the right document; it is not a relevance model.
 */
export function searchCorpus(corpus: readonly CorpusDocument[], query: string, limit: number): SearchHit[] {
  const terms = searchTerms(query);
  const hits: SearchHit[] = [];
  for (const doc of corpus) {
    const docText = [doc.title, ...doc.sections.map((s) => `${s.heading}\n${s.text}`)].join("\n").toLowerCase();
    const matched = terms.filter((t) => countWord(docText, t) > 0);
    if (matched.length === 0) continue;
    const counts = matched.reduce((n, t) => n + Math.min(countWord(docText, t), 5), 0);
    const titleBonus = terms.filter((t) => countWord(doc.title.toLowerCase(), t) > 0).length * 3;
    const best = bestSection(doc.sections, terms);
    hits.push({
      doc_id: doc.id,
      title: doc.title,
      score: matched.length * 10 + counts + titleBonus,
      section: best.id,
      citation: citationMarker(doc.id, best.id),
      snippet: snippet(best.text || best.heading, terms),
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.doc_id.localeCompare(b.doc_id)).slice(0, limit);
}

function bestSection(sections: readonly CorpusSection[], terms: readonly string[]): CorpusSection {
  const score = (s: CorpusSection) => {
    const text = `${s.heading}\n${s.text}`.toLowerCase();
    const present = terms.filter((t) => countWord(text, t) > 0).length;
    return present * 100 + terms.reduce((n, t) => n + countWord(text, t), 0);
  };
  return sections.reduce((best, s) => (score(s) > score(best) ? s : best));
}

function snippet(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  const at = Math.min(...terms.map((t) => wordIndex(lower, t)).filter((i) => i >= 0), flat.length);
  const start = Math.max(0, (at === flat.length ? 0 : at) - 60);
  const cut = flat.slice(start, start + 200);
  return `${start > 0 ? "…" : ""}${cut}${start + 200 < flat.length ? "…" : ""}`;
}

function countWord(text: string, word: string): number {
  return text.match(new RegExp(`(?<![a-z0-9])${word}(?![a-z0-9])`, "g"))?.length ?? 0;
}

function wordIndex(text: string, word: string): number {
  return text.search(new RegExp(`(?<![a-z0-9])${word}(?![a-z0-9])`));
}
