import { canonicalRequest } from "../../actors/buildRequest.ts";
import type { ModelRequest } from "../../models/types.ts";
import type { Recording } from "./recordings.ts";

export interface Difference {
  digest: string;
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

const show = (v: unknown): string => {
  const s = v === undefined ? "(absent)" : JSON.stringify(v);
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
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

/** The recorded request nearest to this one (the longest shared canonical prefix) and where they differ; null with none recorded. */
export function nearestDifference(request: ModelRequest, recordings: readonly Recording[]): Difference | null {
  if (recordings.length === 0) return null;
  const now = canonicalRequest(request);
  let best = recordings[0]!;
  let bestLength = -1;
  for (const r of recordings) {
    const shared = commonPrefix(canonicalRequest(r.request), now);
    if (shared > bestLength) [best, bestLength] = [r, shared];
  }
  const d = firstDifference(best.request, request)!;
  return { digest: best.digest, path: d.path, recorded: show(d.recorded), now: show(d.now) };
}
