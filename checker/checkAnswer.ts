import type { EventData } from "../events/catalogue.ts";
import type { ClaimChain, RunClaims, SourceRef } from "../projections/claimTypes.ts";
import { findQuote } from "../handoff/normaliseQuote.ts";
import { pageAt, pagesOf } from "../handoff/locateQuote.ts";
import { type AdviceSentence, adviceIn } from "./adviceLanguage.ts";
import { type ArtifactCheck, type PublishedArtifact, checkArtifacts } from "./checkArtifacts.ts";
import { type Derivation, deriveFigure } from "./derivedFigures.ts";
import { indexUnits, isDatePart, saidOfAnother, standsBySubject, statedAnywhere, subjectAround, termsOf, wordedAsDerived } from "./numberUnits.ts";
import { type StatedNumber, pagesNamed, statedNumbers as allNumbers, supportedBy, withoutPageLocators } from "./numbers.ts";
import { quotedPhrases, withoutQuotedPhrases } from "./quotedPhrases.ts";

/** The figures of an answer's text: its page locators are checked against its quotes' pages instead. */
const statedNumbers = (text: string): StatedNumber[] => allNumbers(withoutPageLocators(text));

export type CheckResult = EventData<"check_completed">;
type SourceCheck = CheckResult["sources"][number];
type ClaimCheck = CheckResult["claims"][number];

/** A cited source read again: its bytes' hash now and, when it could be read, its text now. */
export interface Reread {
  url: string;
  kind: string;
  recordedRawSha256: string;
  state: "read" | "unreachable" | "not_reread";
  currentRawSha256: string | null;
  currentText: string | null;
  detail?: string;
  rereadAt: string;
}

export interface CheckInput {
  claims: RunClaims;
  /** The answer's own text around its claims: its summary and section headings. */
  summary: string;
  headings: readonly string[];
  /** Stored text by blob sha256: the sources' text blobs, the quotes' blobs and the artifacts. */
  texts: ReadonlyMap<string, string>;
  /** By sourceKey. */
  rereads: ReadonlyMap<string, Reread>;
  /** The CSV and JSON artifacts the run published, with what each was derived from (answerToCheck). */
  artifacts?: readonly PublishedArtifact[];
}

export type FlagKind = NonNullable<ClaimCheck["flags"]>[number]["kind"];

/** A source as the log recorded it: the same URL read twice with different bytes is two sources. */
export const sourceKey = (url: string, rawSha256: string): string => `${url}\n${rawSha256}`;

/**
 * Whether a source's raw bytes are text too (HTML, plain text, JSON, CSV, XML): then its numbers count, for the
 * extracted text leaves out what the tool still showed (a page's title), and a PDF's bytes would only add noise.
 */
export const rawIsText = (s: Pick<SourceRef, "contentType">): boolean => /^(?:text\/|application\/(?:json|xml|xhtml\+xml|csv))/i.test(s.contentType);

/** What one claim rests on: the texts its numbers must be in, and each source's quotes. */
interface Basis {
  texts: string[];
  /** sourceKey -> the quotes taken from it and the text recorded for it. */
  sources: Map<string, { quotes: string[]; text: string | null }>;
  quotes: number;
  /** The pages its quotes are on. */
  pages: Set<number>;
  /** The texts of its findings' quotes: the operands a derived figure may be computed from. */
  quoteTexts: string[];
  /** Whether every finding it cites is gathered material no Child summarised (unverified). */
  gatheredOnly: boolean;
}

function basisOf(claim: ClaimChain, texts: ReadonlyMap<string, string>): Basis {
  const basis: Basis = { texts: [], sources: new Map(), quotes: 0, pages: new Set(), quoteTexts: [], gatheredOnly: claim.findings.length > 0 && claim.findings.every((f) => f.gathered) };
  const text = (sha: string | undefined) => (sha ? texts.get(sha) ?? null : null);
  const keep = (t: string | null) => t !== null && !basis.texts.includes(t) && basis.texts.push(t);
  const source = (url: string, raw: string, textSha: string) => {
    const key = sourceKey(url, raw);
    if (!basis.sources.has(key)) basis.sources.set(key, { quotes: [], text: text(textSha) });
    return basis.sources.get(key)!;
  };
  for (const f of claim.findings) {
    for (const call of f.toolCalls) {
      for (const s of call.sources) {
        keep(source(s.url, s.rawSha256, s.textSha256).text);
        if (rawIsText(s)) keep(text(s.rawSha256));
      }
      for (const a of call.artifacts) keep(text(a.sha256));
    }
    for (const q of f.quotes) {
      basis.quotes++;
      basis.quoteTexts.push(q.text);
      if (q.page !== null) basis.pages.add(q.page);
      keep(text(q.blob?.sha256));
      if (q.source?.kind === "source") source(q.source.url, q.source.rawSha256, q.source.textSha256).quotes.push(q.text);
      else if (q.source?.kind === "artifact") keep(text(q.source.sha256));
    }
  }
  return basis;
}

const missing = (numbers: readonly StatedNumber[], texts: readonly string[]): StatedNumber[] => {
  const known = texts.flatMap(allNumbers);
  return numbers.filter((n) => !supportedBy(n, known));
};

/** A quoted phrase found in one of the texts: the page it is on there (null for a text without pages). */
function locatePhrase(phrase: string, texts: readonly string[]): { page: number | null } | null {
  // A phrase quoted with the answer's own closing punctuation ("… in 2026.") is the same quote.
  const variants = [...new Set([phrase, phrase.replace(/[.,;:!?]+$/, "")])].filter((v) => v.trim());
  for (const v of variants) {
    for (const t of texts) {
      const [at] = findQuote(t, v);
      if (at) return { page: pageAt(pagesOf(t), at.start) };
    }
  }
  return null;
}

type Flag = { kind: FlagKind; detail: string };

/**
 * The checker's verdicts on a settled answer, from the claim chains, the stored
 * texts and the sources as read again: pure, so `ariadne check`, the host's
 * automatic check and the tests reach the same verdicts from the same inputs.
 *
 * A claim is flagged (each flag with its kind) for a phrase it quotes that no blob it cites holds (quote),
 * a number that stands in no cited text beside the claim's subject and is not derived from cited
 * figures (number), a page its quotes are not on (page), advice (advice), a published artifact it names
 * whose values do not come from what it was derived from (artifact), or a source that no longer supports
 * it or could not be read again (source_changed). A claim without evidence (judgment, not collected, no
 * quote, or gathered material only) is marked, not flagged. The run's verdict: flagged on any flag;
 * unsupported when an observed claim has no evidence, none is observed, or the answer is partial;
 * supported otherwise.
 */
export function checkAnswer(input: CheckInput): CheckResult {
  const { claims, texts, rereads } = input;
  if (!claims.answer) throw new Error(`run ${claims.runId} has no answer to check`);
  const bases = claims.claims.map((c) => basisOf(c, texts));

  // A changed source still supports the answer when every quote taken from it, and every number of a
  // claim citing it that its recorded text stated, still occur in its text now.
  const keys = [...new Set(bases.flatMap((b) => [...b.sources.keys()]))];
  const sources: SourceCheck[] = keys.map((key) => {
    const r = rereads.get(key);
    const [url, raw] = key.split("\n");
    if (!r) return { url, kind: "unknown", recordedRawSha256: raw, state: "unreachable", currentRawSha256: null, detail: "not read again", rereadAt: "" };
    const base = { url, kind: r.kind, recordedRawSha256: raw, currentRawSha256: r.currentRawSha256, rereadAt: r.rereadAt, ...(r.detail && { detail: r.detail }) };
    if (r.state !== "read") return { ...base, state: r.state };
    if (r.currentRawSha256 === raw) return { ...base, state: "unchanged" };
    const now = r.currentText ?? "";
    const lost: string[] = [];
    claims.claims.forEach((c, i) => {
      const used = bases[i].sources.get(key);
      if (!used) return;
      for (const q of used.quotes) if (findQuote(now, q).length === 0) lost.push(`quote "${clip(q)}" (${c.id})`);
      const fromIt = statedNumbers(c.text).filter((n) => used.text !== null && missing([n], [used.text]).length === 0);
      for (const n of missing(fromIt, [now])) lost.push(`${n.text} (${c.id})`);
    });
    const detail = `changed: now ${r.currentRawSha256?.slice(0, 12)}…` + (lost.length ? `; no longer states ${lost.join(", ")}` : "; every quote and number it gave still occurs");
    return { ...base, state: lost.length ? "no_longer_supports" : "still_supports", detail };
  });
  const index = new Map(keys.map((k, i) => [k, i]));
  const allTexts = [...new Set(bases.flatMap((b) => b.texts))];
  const artifactChecks: ArtifactCheck[] = checkArtifacts(input.artifacts ?? [], [input.summary, ...input.headings, ...claims.claims.map((c) => c.text)].join("\n"));

  const claimAdvice: AdviceSentence[][] = [];
  const checked: ClaimCheck[] = claims.claims.map((claim, i) => {
    const basis = bases[i];
    const notes: string[] = [];
    const flags: Flag[] = [];
    const flag = (kind: FlagKind, detail: string) => {
      flags.push({ kind, detail });
      notes.push(detail);
    };
    const numbers = statedNumbers(claim.text);
    // A claim that cites no text rests on none: its numbers are Main's own (a goal, an assumption), not checked.
    // Nor does a claim resting only on gathered material: it is unverified, marked so, its text not held to it.
    const unchecked = (basis.texts.length === 0 && claim.basis !== "observed") || basis.gatheredOnly;

    // Quotes: every phrase the claim quotes is found, under the one normalisation, in a blob it cites; a claim
    // that cites none (a judgment, a gap) is held, as the summary is, to every blob the answer cites. Only
    // gathered material, unverified and marked so, is not held to its excerpt's quotes.
    const phrases = quotedPhrases(claim.text);
    const located = basis.gatheredOnly ? [] : phrases.map((p) => ({ phrase: p, at: locatePhrase(p.text, basis.texts.length ? basis.texts : allTexts) }));
    for (const { phrase, at } of located) if (!at) flag("quote", `quote "${clip(phrase.text)}": in no blob it cites`);

    // Numbers outside its quotes: each beside the claim's subject in a cited text, or derived from cited figures.
    const own = withoutPageLocators(withoutQuotedPhrases(claim.text, phrases));
    const units = indexUnits(basis.texts);
    const unsupported: StatedNumber[] = [];
    const derived: Derivation[] = [];
    if (!unchecked) {
      const ownNumbers = allNumbers(own);
      // A number stands when a cited unit states it beside the claim's subject, when a quote the claim rests on
      // states it (the quote is its unit) and it is not said of another entity than the one stating it, or,
      // for a date, when a cited text states it anywhere.
      const quotedTexts = [...located.filter((l) => l.at).map((l) => l.phrase.text), ...basis.quoteTexts];
      const quoted = quotedTexts.flatMap(allNumbers);
      const withQuotes = indexUnits([...basis.texts, ...quotedTexts]);
      const standing = ownNumbers.filter((n) => {
        const subject = subjectAround(own, n, ownNumbers);
        return standsBySubject(n, subject, units) || (supportedBy(n, quoted) && !saidOfAnother(n, subject, withQuotes, termsOf(claim.text))) || (isDatePart(own, n.offset) && statedAnywhere(n, units));
      });
      const operands = [...standing, ...quoted];
      for (const n of ownNumbers) {
        if (standing.includes(n)) continue;
        // Only a figure the claim words as computed ("a cut of 9 bps") is looked for among the derivations.
        const d = wordedAsDerived(own, n.offset, n.text.length) ? deriveFigure(n, dedupe(operands)) : null;
        if (d) {
          derived.push(d);
          notes.push(`derived: ${d.formula}`);
          continue;
        }
        unsupported.push(n);
        flag("number", statedAnywhere(n, units) ? `${n.text}: stated in its sources, but not beside the claim's subject` : `${n.text}: in no cited source text or artifact`);
      }
    } else if (numbers.length) notes.push(`its numbers (${numbers.map((n) => n.text).join(", ")}) are not checked: it cites no source`);

    // Pages: a page it names is one its quotes (or the phrases it quotes) are on.
    const quotePages = new Set([...basis.pages, ...located.flatMap((l) => (l.at?.page != null ? [l.at.page] : []))]);
    const badPages = unchecked
      ? []
      : pagesNamed(withoutQuotedPhrases(claim.text, phrases)).filter((p) =>
          quotePages.size ? !quotePages.has(p) : !basis.texts.some((t) => t.includes(`[page ${p}]`)),
        );
    if (badPages.length) flag("page", `page ${badPages.join(", ")}: no quote it rests on is on that page${quotePages.size ? ` (its quotes are on page ${[...quotePages].sort((a, b) => a - b).join(", ")})` : ""}`);

    const ownSources = [...basis.sources.keys()].map((k) => index.get(k)!);
    for (const s of ownSources.map((j) => sources[j])) {
      if (s.state === "no_longer_supports" || s.state === "unreachable") {
        flag("source_changed", `source ${s.url} ${s.state === "unreachable" ? "could not be read again" : "no longer supports it"}${s.detail ? `: ${s.detail}` : ""}`);
      } else if (s.state === "still_supports") notes.push(`source ${s.url} changed but still supports it`);
    }
    // Advice in its own words: phrases it quotes from a blob it cites are the source speaking.
    const advice = adviceIn(claim.text, located.filter((l) => l.at).map((l) => l.phrase));
    claimAdvice.push(advice);
    for (const a of advice) flag("advice", `advice (${a.rule}): "${clip(a.sentence)}"`);
    for (const a of artifactChecks.filter((a) => a.verdict === "flagged" && namesArtifact(claim, a))) flag("artifact", `artifact ${a.path}: ${a.notes.slice(0, 3).join("; ")}`);

    if (claim.basis !== "observed") notes.push(`no evidence: ${claim.basis === "judgment" ? "a judgment" : "not collected"}`);
    else if (basis.gatheredOnly) notes.push("no evidence: it cites only material a stopped Child gathered and never summarised (unverified)");
    else if (basis.quotes === 0) notes.push("no evidence: its findings quote nothing");
    const observed = claim.basis === "observed" && !basis.gatheredOnly && basis.quotes > 0;
    const verdict = flags.length ? "flagged" : observed ? "supported" : "no_evidence";
    return {
      claimId: claim.id,
      basis: claim.basis,
      verdict,
      notes,
      numbers: numbers.map((n) => n.text),
      unsupportedNumbers: [...unsupported.map((n) => n.text), ...badPages.map((p) => `page ${p}`)],
      sources: ownSources,
      flags,
      derived,
      quotes: located.map((l) => ({ text: l.phrase.text, found: l.at !== null })),
    };
  });

  const around = [input.summary, ...input.headings].join("\n");
  // The summary restates the claims: a number in it stands beside its subject in a cited unit or in a claim whose
  // own numbers were checked, and is not said of another entity than the one stating it (a date: anywhere in them).
  const claimed = claims.claims.filter((_, i) => checked[i].verdict !== "flagged" && checked[i].unsupportedNumbers.length === 0).map((c) => c.text);
  const aroundPhrases = quotedPhrases(around);
  const aroundOwn = withoutPageLocators(withoutQuotedPhrases(around, aroundPhrases));
  const summaryNumbers = allNumbers(aroundOwn);
  const summaryUnits = indexUnits([...allTexts, ...claimed]);
  const summaryUnsupported = summaryNumbers.filter((n) => {
    const subject = subjectAround(aroundOwn, n, summaryNumbers);
    if (isDatePart(aroundOwn, n.offset)) return !statedAnywhere(n, summaryUnits);
    return !standsBySubject(n, subject, summaryUnits) || saidOfAnother(n, subject, summaryUnits, termsOf(around));
  });
  const unfoundQuotes = aroundPhrases.filter((p) => !locatePhrase(p.text, allTexts)).map((p) => p.text);

  // A phrase quoted verbatim from a cited source is the source speaking, not the answer advising.
  const sourcedIn = (text: string) => quotedPhrases(text).filter((p) => locatePhrase(p.text, allTexts));
  const advice = [
    ...adviceIn(input.summary, sourcedIn(input.summary)).map((a) => ({ where: "summary", sentence: a.sentence, rule: a.rule })),
    ...input.headings.flatMap((h, i) => adviceIn(h, sourcedIn(h)).map((a) => ({ where: `section ${i + 1} heading`, sentence: a.sentence, rule: a.rule }))),
    ...claims.claims.flatMap((c, i) => claimAdvice[i].map((a) => ({ where: c.id, sentence: a.sentence, rule: a.rule }))),
  ];
  const anyFlag =
    checked.some((c) => c.verdict === "flagged") ||
    summaryUnsupported.length > 0 ||
    unfoundQuotes.length > 0 ||
    advice.length > 0 ||
    artifactChecks.some((a) => a.verdict === "flagged");
  const bare = checked.filter((c, i) => c.basis === "observed" && c.verdict === "no_evidence" && claims.claims[i]);
  const supportedObserved = checked.filter((c) => c.basis === "observed" && c.verdict === "supported").length;
  const verdictReason = anyFlag
    ? undefined
    : claims.answer.partial
      ? "the answer is partial: built from the handoffs held when Main was stopped, not integrated"
      : bare.length
        ? `observed claim${bare.length === 1 ? "" : "s"} ${bare.map((c) => c.claimId).join(", ")} without evidence`
        : supportedObserved === 0
          ? "no claim is observed: nothing it says rests on evidence"
          : undefined;
  return {
    answerEventId: claims.answer.eventId,
    verdict: anyFlag ? "flagged" : verdictReason ? "unsupported" : "supported",
    ...(verdictReason && { verdictReason }),
    claims: checked,
    summary: { numbers: summaryNumbers.map((n) => n.text), unsupportedNumbers: summaryUnsupported.map((n) => n.text), unfoundQuotes },
    advice,
    sources,
    artifacts: artifactChecks,
  };
}

/** Numbers once each, by what they were written as. */
const dedupe = (ns: readonly StatedNumber[]): StatedNumber[] => [...new Map(ns.map((n) => [n.text, n])).values()];

/** Whether a claim names an artifact (its path or id) or rests on the call that produced it. */
const namesArtifact = (claim: ClaimChain, a: ArtifactCheck): boolean =>
  claim.text.includes(a.path.split("/").at(-1)!) || claim.text.includes(a.id) || claim.findings.some((f) => f.toolCalls.some((t) => t.artifacts.some((x) => x.sha256 === a.sha256)));

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s).replace(/\s+/g, " ");
