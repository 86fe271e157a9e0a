import type { ScriptedReply } from "../scriptedModel.ts";
import type { ModelRequest } from "../types.ts";
import { exchanges, resultsOf } from "../requestView.ts";
import { handoff, quoteOf, quotedText, use } from "../scriptedReplies.ts";
import { type Passage, asksForNumber, pickPassages, rowWithHeader } from "./passages.ts";
import { contentWords, urlsIn } from "./questionTerms.ts";

/** Pages a Child reads of its search results at most, in rank order. */
export const PAGES_READ = 3;
/** Passages a Child hands back at most. */
export const FINDINGS_KEPT = 3;
/** Windows of one document (a PDF read with document_read) a Child reads at most (each up to 40,000 characters). */
export const WINDOWS_READ = 3;
/** What one more read may add to a request, in tokens: a window of 40,000 characters at four a token, and its frame. */
const READ_TOKENS = 10_500;
/**
 * The tokens a web-explorer Child may spend by default: the configured
 * investigate-style cap (governance/config.ts; the host passes the run's own).
 * The Child plans its reads within it, since every request carries all it has
 * read so far; were it stopped anyway, the runtime's partial handoff says so.
 */
export const DEFAULT_CHILD_TOKENS = 60_000;

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
 * A Child of the baseline researcher. It searches the question's content
 * words (and fetches any URL its task names), then reads the results one at a
 * time in rank order (a PDF a fetch stored is opened with document_read, a
 * long one read on window by window), until a passage holds most of the
 * question's terms, three pages are read, or its token budget would not carry
 * another read; then it quotes the sentences and table rows that hold the
 * question's terms and a number or a name, verbatim, and hands off. Every step
 * reacts to what the tools returned; nothing about any corpus is built in.
 */
export function childPolicy(request: ModelRequest, budget = DEFAULT_CHILD_TOKENS): ScriptedReply {
  const { question, text } = childTask(request);
  const done = exchanges(request);
  const fetched = new Set(done.filter((x) => x.use.name === "web_fetch").map((x) => (x.use.input as { url: string }).url));
  if (!done.some((x) => x.use.name === "web_search")) {
    const named = urlsIn(text).filter((u) => !fetched.has(u));
    return { content: [toolUse("web_search", { query: searchQuery(question) || question.slice(0, 200), limit: 5 }), ...named.map((url) => toolUse("web_fetch", { url }))] };
  }
  if (answered(request, question) || !affordsRead(request, budget)) return handOff(request, question);
  const opened = new Set(done.filter((x) => x.use.name === "document_read").map((x) => (x.use.input as { sha256?: string }).sha256));
  const stored = resultsOf(request, "web_fetch").flatMap((r) => /open it with document_read, giving \{"sha256": "([0-9a-f]{64})"\}/.exec(r.output)?.[1] ?? []);
  const toOpen = stored.find((sha) => !opened.has(sha));
  if (toOpen) return use("document_read", { sha256: toOpen });
  const onward = readOn(request);
  if (onward) return { content: [onward] };
  const next = searchHits(request).filter((u) => !fetched.has(u));
  if (next.length && fetched.size < PAGES_READ) return use("web_fetch", { url: next[0]! });
  return handOff(request, question);
}

/** Characters of a request as estimateUsage counts them (system, messages, tool specs). */
const charsOf = (request: ModelRequest, messages = request.messages) => request.system.length + JSON.stringify(messages).length + JSON.stringify(request.tools).length;

/**
 * Whether one more read fits the budget: what the Child's turns have cost so
 * far (each request is a prefix of this one's messages), this request with
 * one more window read, the turn after it, and each turn's output allowance.
 */
function affordsRead(request: ModelRequest, budget: number): boolean {
  let spent = 0;
  request.messages.forEach((m, i) => {
    if (m.role === "assistant") spent += Math.ceil(charsOf(request, request.messages.slice(0, i)) / 4) + Math.ceil(JSON.stringify(m.content).length / 4);
  });
  const now = Math.ceil(charsOf(request) / 4);
  return spent + now + (now + READ_TOKENS) + 2 * request.maxTokens <= budget;
}

/** A passage read so far holds most of the question's terms (and a figure, when the question asks for one): enough to hand off. */
function answered(request: ModelRequest, question: string): boolean {
  const terms = contentWords(question);
  const wantsNumber = asksForNumber(question);
  const need = Math.max(Math.min(2, terms.length), Math.ceil(terms.length * 0.6));
  return readTexts(request).some((doc) => pickPassages(doc.text, terms, { csv: doc.csv, limit: 1, wantsNumber }).some((p) => p.terms.length >= need && (!wantsNumber || /\d/.test(p.text))));
}

/** The next window of a document read so far (its result said next_offset), up to WINDOWS_READ a document. */
function readOn(request: ModelRequest) {
  const calls = exchanges(request).filter((x) => x.use.name === "document_read");
  const windows = new Map<string, Set<number>>();
  for (const x of calls) {
    const input = x.use.input as { sha256: string; offset?: number };
    windows.set(input.sha256, (windows.get(input.sha256) ?? new Set()).add(input.offset ?? 0));
  }
  for (const x of calls) {
    const input = x.use.input as { sha256: string };
    const next = x.result && !x.result.is_error ? /next_offset: (\d+)/.exec(x.result.content.slice(0, 3000))?.[1] : undefined;
    const seen = windows.get(input.sha256)!;
    if (next !== undefined && !seen.has(Number(next)) && seen.size < WINDOWS_READ) return toolUse("document_read", { sha256: input.sha256, offset: Number(next) });
  }
  return undefined;
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
  // A document read from a blob is named by the URL it was fetched from, where the fetch said so.
  for (const r of resultsOf(request, "web_fetch")) {
    const sha = /open it with document_read, giving \{"sha256": "([0-9a-f]{64})"\}/.exec(r.output)?.[1];
    if (sha) for (const [id, where] of urlOf) if (where === `blob:${sha}`) urlOf.set(id, urlOf.get(r.id)!);
  }
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
    .flatMap((doc) => pickPassages(doc.text, terms, { csv: doc.csv, limit: FINDINGS_KEPT, wantsNumber: asksForNumber(question) }).map((p) => ({ doc, p })))
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
