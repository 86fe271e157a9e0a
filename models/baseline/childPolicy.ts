import type { ScriptedReply } from "../scriptedModel.ts";
import type { ModelRequest } from "../types.ts";
import { handoff, quoteOf, quotedText, use } from "../../scenarios/etfOverlap/scriptedHandoff.ts";
import { exchanges, resultsOf } from "../../scenarios/requestView.ts";
import { type Passage, pickPassages, rowWithHeader } from "./passages.ts";
import { contentWords, urlsIn } from "./questionTerms.ts";

/** Pages a Child reads of its search results, best ranked first. */
export const PAGES_READ = 3;
/** Passages a Child hands back at most. */
export const FINDINGS_KEPT = 3;

/** The Child's task as the runtime rendered it (actors/prompts.ts): its question, and the whole task text. */
export function childTask(request: ModelRequest): { question: string; text: string } {
  const first = request.messages.find((m) => m.role === "user");
  const text = typeof first?.content === "string" ? first.content : (first?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("\n");
  const question = /^Question: ([\s\S]*?)\n\nContext:/.exec(text)?.[1] ?? text;
  return { question, text };
}

/** The search query of a question: its content words, at most eight. */
export const searchQuery = (question: string): string => contentWords(question).slice(0, 8).join(" ");

const toolUse = (name: string, input: unknown) => ({ type: "tool_use" as const, name, input });

/**
 * A Child of the baseline researcher: search the question's content words
 * (and fetch any URL its task names), fetch the top results, open a stored PDF
 * with document_read, then quote the sentences and table rows that hold the
 * question's terms and a number or a name, verbatim, and hand off. Every step
 * reacts to what the tools returned; nothing about any corpus is built in.
 */
export function childPolicy(request: ModelRequest): ScriptedReply {
  const { question, text } = childTask(request);
  const done = exchanges(request);
  const fetched = new Set(done.filter((x) => x.use.name === "web_fetch").map((x) => (x.use.input as { url: string }).url));
  if (!done.some((x) => x.use.name === "web_search")) {
    const named = urlsIn(text).filter((u) => !fetched.has(u));
    return { content: [toolUse("web_search", { query: searchQuery(question) || question.slice(0, 200), limit: 5 }), ...named.map((url) => toolUse("web_fetch", { url }))] };
  }
  const toFetch = searchHits(request).slice(0, PAGES_READ).filter((u) => !fetched.has(u));
  if (toFetch.length) return { content: toFetch.map((url) => toolUse("web_fetch", { url })) };
  const opened = new Set(done.filter((x) => x.use.name === "document_read").map((x) => (x.use.input as { sha256?: string }).sha256));
  const stored = resultsOf(request, "web_fetch").flatMap((r) => /open it with document_read, giving \{"sha256": "([0-9a-f]{64})"\}/.exec(r.output)?.[1] ?? []);
  const toOpen = [...new Set(stored)].filter((sha) => !opened.has(sha));
  if (toOpen.length) return { content: toOpen.map((sha256) => toolUse("document_read", { sha256 })) };
  return handOff(request, question);
}

/** The URLs of the search results, in rank order. */
function searchHits(request: ModelRequest): string[] {
  const [search] = resultsOf(request, "web_search");
  if (!search) return [];
  try {
    const list = JSON.parse(quotedText(search.output)) as { results?: { url?: unknown }[] };
    return [...new Set((list.results ?? []).flatMap((r) => (typeof r.url === "string" ? [r.url] : [])))];
  } catch {
    return [...new Set([...search.output.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1]!))];
  }
}

interface ReadText {
  toolUseId: string;
  /** What was read: a URL, or the blob a document was read from. */
  where: string;
  text: string;
  csv: boolean;
}

/** What the Child read: each fetched page's and each read document's quoted text. */
function readTexts(request: ModelRequest): ReadText[] {
  const urlOf = new Map(exchanges(request).map((x) => [x.use.id, String((x.use.input as { url?: string; sha256?: string }).url ?? `blob:${(x.use.input as { sha256?: string }).sha256}`)]));
  return [...resultsOf(request, "web_fetch"), ...resultsOf(request, "document_read")].flatMap((r) => {
    const text = quotedText(r.output);
    if (!text.trim()) return [];
    const csv = /\btext\/csv\b/.test(r.output.slice(0, 400)) || /\.csv(\?|$)/.test(urlOf.get(r.id) ?? "");
    return [{ toolUseId: r.id, where: urlOf.get(r.id) ?? "", text, csv }];
  });
}

function handOff(request: ModelRequest, question: string): ScriptedReply {
  const terms = contentWords(question);
  const read = readTexts(request);
  const picked = read
    .flatMap((doc) => pickPassages(doc.text, terms, { csv: doc.csv, limit: FINDINGS_KEPT }).map((p) => ({ doc, p })))
    .sort((a, b) => b.p.score - a.p.score)
    .slice(0, FINDINGS_KEPT);
  const findings = picked.flatMap(({ doc, p }) => {
    const quotes = quoteOf(doc.toolUseId, doc.text, p.text, p.page);
    return quotes.length ? [{ claim: claimOf(p, doc.csv), evidence: { toolResults: [doc.toolUseId], citations: [], quotes }, confidence: "medium" as const }] : [];
  });
  const gaps = findings.length
    ? []
    : [read.length ? `None of the ${read.length} texts read holds a sentence or row with the question's terms (${terms.join(", ")}) and a number or name.` : "The search found nothing that could be read."];
  return handoff("baseline", {
    summary: `Searched "${searchQuery(question)}", read ${read.length} texts, quoted ${findings.length} passages.`,
    findings,
    basis: { sources: [...new Set(read.map((d) => d.where))], dates: [], units: [], scope: "the top search results for the question's content words, read once each" },
    gaps,
  });
}

/** A finding's claim: the quoted sentence, or a row read with its header, and its page. */
function claimOf(p: Passage, csv: boolean): string {
  const body = p.header ? `Row: ${rowWithHeader(p, csv)}` : `"${p.text}"`;
  return p.page === undefined ? body : `${body} (page ${p.page})`;
}
