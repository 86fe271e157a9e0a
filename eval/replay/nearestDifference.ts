import type { ModelRequest } from "../../models/types.ts";
import type { Recording } from "./recordings.ts";
import { normalizedRequest } from "./replayKey.ts";

export interface Difference {
  /** The nearest recording's replay key. */
  key: string;
  /** Where the two requests first differ, e.g. `messages[3].content[0].content`. */
  path: string;
  recorded: string;
  now: string;
}

const commonPrefix = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

const show = (v: unknown, from = 0): string => {
  const s = v === undefined ? "(absent)" : JSON.stringify(v);
  // Two long texts are shown from a little before where they part.
  const start = Math.max(0, Math.min(from, s.length) - 40);
  const shown = s.slice(start, start + 120);
  return `${start > 0 ? "…" : ""}${shown}${start + 120 < s.length ? "…" : ""}`;
};

/** The first path at which two JSON values differ, and the two values there. */
export function firstDifference(a: unknown, b: unknown, at = ""): { path: string; recorded: unknown; now: unknown } | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
  }
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], at ? `${at}.${k}` : k);
      if (d) return d;
    }
  }
  return { path: at || "(the request)", recorded: a, now: b };
}

/**
 * The recorded request nearest to this one (the longest shared prefix of the
 * normalised requests, which replay keys hash) and the first path where they
 * differ, ids and times normalised as the key has them; null with none recorded.
 */
export function nearestDifference(request: ModelRequest, recordings: readonly Recording[]): Difference | null {
  if (recordings.length === 0) return null;
  const now = normalizedRequest(request).text;
  let best = recordings[0]!;
  let bestText = "";
  let bestLength = -1;
  for (const r of recordings) {
    const text = normalizedRequest(r.request).text;
    const shared = commonPrefix(text, now);
    if (shared > bestLength) [best, bestText, bestLength] = [r, text, shared];
  }
  const d = firstDifference(JSON.parse(bestText), JSON.parse(now))!;
  const from = typeof d.recorded === "string" && typeof d.now === "string" ? commonPrefix(JSON.stringify(d.recorded), JSON.stringify(d.now)) : 0;
  return { key: best.key, path: d.path, recorded: show(d.recorded, from), now: show(d.now, from) };
}
