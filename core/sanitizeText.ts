/**
 * Text that PostgreSQL's jsonb (and so the event log) cannot hold: U+0000 and
 * lone UTF-16 surrogates. Model and tool output is cleaned at the boundary with
 * this one function, each offending character replaced by U+FFFD, and what was
 * replaced is reported so the event can record it.
 */
export interface SanitizeResult<T> {
  value: T;
  /** What was replaced and where, e.g. "U+0000 x2 in content[0].text"; empty when nothing was. */
  notes: string[];
}

const REPLACEMENT = "\uFFFD";
const NUL = /\u0000/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** True when the event log can store the text as given: no U+0000, no lone surrogate. */
export const isStorableText = (s: string): boolean => !s.includes("\u0000") && s.isWellFormed();

/** Why a text given by a user is refused, where input is refused rather than cleaned. */
export const UNSTORABLE_TEXT = "may not contain U+0000 or a lone UTF-16 surrogate (the log cannot store them)";

/** Deep over strings in a JSON value (object keys included); `at` names the root in the notes. */
export function sanitizeText<T>(value: T, at: string): SanitizeResult<T> {
  // Nearly every value is clean: one look without building paths or copies, and it comes back as it was.
  if (isClean(value)) return { value, notes: [] };
  const notes: string[] = [];
  const clean = (s: string, where: string): string => {
    if (!s.includes("\u0000") && s.isWellFormed()) return s;
    const nul = s.match(NUL)?.length ?? 0;
    const lone = s.match(LONE_SURROGATE)?.length ?? 0;
    if (nul) notes.push(`U+0000 x${nul} in ${where}`);
    if (lone) notes.push(`lone surrogate x${lone} in ${where}`);
    return s.replace(NUL, REPLACEMENT).toWellFormed();
  };
  const walk = (v: unknown, where: string): unknown => {
    if (typeof v === "string") return clean(v, where);
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${where}[${i}]`));
    if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => {
          const key = clean(k, `a key in ${where}`);
          return [key, walk(x, `${where}.${key}`)];
        }),
      );
    }
    return v;
  };
  const cleaned = walk(value, at) as T;
  // Untouched values are returned as they were, so callers keep their identity.
  return notes.length ? { value: cleaned, notes } : { value, notes };
}

/** True when no string the walk below would clean (keys included) needs cleaning. */
function isClean(v: unknown): boolean {
  if (typeof v === "string") return isStorableText(v);
  if (Array.isArray(v)) {
    for (const x of v) if (!isClean(x)) return false;
    return true;
  }
  if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    for (const k of Object.keys(v)) if (!isStorableText(k) || !isClean((v as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/**
 * What a terminal would act on rather than show: C0 controls but tab and
 * newline (ESC starts CSI/OSC sequences that clear the screen, set the title or
 * hyperlinks; CR rewrites a line; BEL, BS), DEL, the C1 controls (U+009B is CSI
 * on its own) and the bidirectional overrides and isolates that reorder what
 * is shown (Trojan Source).
 */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]/g;

/**
 * Recorded text (a question, a model's reply, a page, a tool name) made safe
 * to print: every control character above is written as its `\uXXXX` escape,
 * visible and inert. The escape is JSON's own, so a JSON line stays the same
 * value. `keep` lets a renderer's own colour codes through (the live view's):
 * the exact sequences it paints with, nothing else.
 */
export function terminalText(text: string, keep?: RegExp): string {
  const escape = (s: string) => s.replace(TERMINAL_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (!keep) return escape(text);
  const pattern = new RegExp(keep.source, "g");
  let out = "";
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    out += escape(text.slice(at, m.index)) + m[0];
    at = m.index + m[0].length;
  }
  return out + escape(text.slice(at));
}
