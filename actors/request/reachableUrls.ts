import type { TaskSpec } from "../../events/index.ts";
import { normalizeUrl } from "../../tools/web/normalizeUrl.ts";

// Ends before whitespace, quotes, angle brackets and closing brackets; trailing sentence punctuation is trimmed below.
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`)\]}]+/gi;

/** http(s) URLs written in a text, as written (cheap: one regex pass; normalised only when a fetch asks). */
export function urlsInText(text: string): string[] {
  const found = text.match(URL_IN_TEXT);
  return found ? found.map((u) => u.replace(/[.,;:!?]+$/, "")) : [];
}

/** The URLs an executor's task names: its question, context and done-when (Main's question is the user's). */
export function urlsInTask(task: TaskSpec): string[] {
  return [...urlsInText(task.question), ...urlsInText(task.context), ...urlsInText(task.doneWhen)];
}

const checks = new WeakMap<readonly string[], (url: string) => boolean>();

/**
 * Whether a URL is among those the executor has seen (its task, links its own
 * earlier tool results showed), compared after normalisation. Built once per
 * list: the fold shares the list between states until a new link arrives.
 */
export function reachableCheck(seen: readonly string[]): (url: string) => boolean {
  let check = checks.get(seen);
  if (!check) {
    const normalized = new Set(seen.map(normalizeUrl).filter((u): u is string => u !== null));
    check = (url) => {
      const n = normalizeUrl(url);
      return n !== null && normalized.has(n);
    };
    checks.set(seen, check);
  }
  return check;
}
