import type { EventData } from "../events/catalogue.ts";
import type { ClaimChain, RunClaims, SourceRef } from "../projections/claimTypes.ts";
import { adviceIn } from "./adviceLanguage.ts";
import { type StatedNumber, pagesNamed, statedNumbers as allNumbers, supportedBy, withoutPageLocators } from "./numbers.ts";

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
}

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
}

function basisOf(claim: ClaimChain, texts: ReadonlyMap<string, string>): Basis {
  const basis: Basis = { texts: [], sources: new Map(), quotes: 0, pages: new Set() };
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

/**
 * The checker's verdicts on a settled answer, from the claim chains, the stored
 * texts and the sources as read again: pure, so `ariadne check`, the host's
 * automatic check and the tests reach the same verdicts from the same inputs.
 * A claim is flagged for a number no cited text states, or a source that no
 * longer supports it or could not be read again; a claim without evidence
 * (judgment, not collected, no quote) is marked, not flagged.
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
      for (const q of used.quotes) if (!now.includes(q)) lost.push(`quote "${clip(q)}" (${c.id})`);
      const fromIt = statedNumbers(c.text).filter((n) => used.text !== null && missing([n], [used.text]).length === 0);
      for (const n of missing(fromIt, [now])) lost.push(`${n.text} (${c.id})`);
    });
    const detail = `changed: now ${r.currentRawSha256?.slice(0, 12)}…` + (lost.length ? `; no longer states ${lost.join(", ")}` : "; every quote and number it gave still occurs");
    return { ...base, state: lost.length ? "no_longer_supports" : "still_supports", detail };
  });
  const index = new Map(keys.map((k, i) => [k, i]));

  const checked: ClaimCheck[] = claims.claims.map((claim, i) => {
    const basis = bases[i];
    const numbers = statedNumbers(claim.text);
    const notes: string[] = [];
    let flagged = false;
    // A claim that cites no text rests on none: its numbers are Main's own (a goal, an assumption), not checked.
    const unchecked = basis.texts.length === 0 && claim.basis !== "observed";
    const unsupported = unchecked ? [] : missing(numbers, basis.texts);
    // A page the claim names must be one its quotes are on (or a page marker of a text it cites).
    const badPages = unchecked ? [] : pagesNamed(claim.text).filter((p) => !basis.pages.has(p) && !basis.texts.some((t) => t.includes(`[page ${p}]`)));
    if (badPages.length) {
      flagged = true;
      notes.push(`page ${badPages.join(", ")}: no quote it rests on is on that page`);
    }
    if (unsupported.length) {
      flagged = true;
      notes.push(`${unsupported.map((n) => n.text).join(", ")}: in no cited source text or artifact`);
    } else if (unchecked && numbers.length) notes.push(`its numbers (${numbers.map((n) => n.text).join(", ")}) are not checked: it cites no source`);
    const own = [...basis.sources.keys()].map((k) => index.get(k)!);
    for (const s of own.map((j) => sources[j])) {
      if (s.state === "no_longer_supports" || s.state === "unreachable") {
        flagged = true;
        notes.push(`source ${s.url} ${s.state === "unreachable" ? "could not be read again" : "no longer supports it"}${s.detail ? `: ${s.detail}` : ""}`);
      } else if (s.state === "still_supports") notes.push(`source ${s.url} changed but still supports it`);
    }
    for (const a of adviceIn(claim.text)) {
      flagged = true;
      notes.push(`advice (${a.rule}): "${clip(a.sentence)}"`);
    }
    if (claim.basis !== "observed") notes.push(`no evidence: ${claim.basis === "judgment" ? "a judgment" : "not collected"}`);
    else if (basis.quotes === 0) notes.push("no evidence: its findings quote nothing");
    const verdict = flagged ? "flagged" : claim.basis !== "observed" || basis.quotes === 0 ? "no_evidence" : "supported";
    return {
      claimId: claim.id,
      basis: claim.basis,
      verdict,
      notes,
      numbers: numbers.map((n) => n.text),
      unsupportedNumbers: [...unsupported.map((n) => n.text), ...badPages.map((p) => `page ${p}`)],
      sources: own,
    };
  });

  const around = [input.summary, ...input.headings].join("\n");
  const allTexts = [...new Set(bases.flatMap((b) => b.texts))];
  // The summary restates the claims: a number in it is supported by a source or by a claim whose own numbers were checked.
  const claimed = claims.claims.filter((_, i) => checked[i].unsupportedNumbers.length === 0).map((c) => c.text);
  const summaryNumbers = statedNumbers(around);
  const summaryUnsupported = missing(summaryNumbers, [...allTexts, ...claimed]);

  const advice = [
    ...adviceIn(input.summary).map((a) => ({ where: "summary", sentence: a.sentence, rule: a.rule })),
    ...input.headings.flatMap((h, i) => adviceIn(h).map((a) => ({ where: `section ${i + 1} heading`, sentence: a.sentence, rule: a.rule }))),
    ...claims.claims.flatMap((c) => adviceIn(c.text).map((a) => ({ where: c.id, sentence: a.sentence, rule: a.rule }))),
  ];
  const anyFlag = checked.some((c) => c.verdict === "flagged") || summaryUnsupported.length > 0 || advice.length > 0;
  return {
    answerEventId: claims.answer.eventId,
    verdict: anyFlag ? "flagged" : "supported",
    claims: checked,
    summary: { numbers: summaryNumbers.map((n) => n.text), unsupportedNumbers: summaryUnsupported.map((n) => n.text) },
    advice,
    sources,
  };
}

const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}…` : s).replace(/\s+/g, " ");
