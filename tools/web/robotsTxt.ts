import type { BlobStore } from "../../sources/types.ts";
import { ToolError } from "../toolErrors.ts";
import { type FetchLimits, fetchLimited } from "./fetchLimited.ts";

/** One host's robots.txt as read: the rules of the group that applies to Ariadne, and the blob it was stored as. */
export interface Robots {
  rules: { allow: boolean; path: string }[];
  sha256: string | null;
}

/** The User-agent token Ariadne answers to in robots.txt (and `*` when no group names it). */
export const ROBOTS_AGENT = "ariadne";

const cache = new Map<string, Promise<Robots>>();

/**
 * Refuses a URL its host's robots.txt disallows for Ariadne. robots.txt is
 * fetched once per host per process through the same fetch path and address
 * policy as the page, and stored as a blob; a host without one (4xx), or one
 * that cannot be reached, allows everything.
 */
export async function checkRobots(
  url: string,
  limits: FetchLimits,
  blobs: BlobStore,
  signal?: AbortSignal,
  gate: <T>(request: () => Promise<T>) => Promise<T> = (request) => request(),
): Promise<void> {
  const { origin, pathname, search } = new URL(url);
  let robots = cache.get(origin);
  if (!robots) {
    robots = gate(() => readRobots(origin, limits, blobs, signal));
    cache.set(origin, robots);
    robots.catch(() => cache.delete(origin));
  }
  const { rules, sha256 } = await robots;
  if (!allowed(rules, pathname + search)) {
    throw new ToolError(`${url} is disallowed by ${origin}/robots.txt for crawlers like Ariadne (stored as blob ${sha256}); it was not fetched. Look for the same information on another page or site.`);
  }
}

async function readRobots(origin: string, limits: FetchLimits, blobs: BlobStore, signal?: AbortSignal): Promise<Robots> {
  try {
    const fetched = await fetchLimited(`${origin}/robots.txt`, { ...limits, maxBytes: 512 * 1024 }, signal, { accept: "text/plain" });
    if (fetched.status >= 400) return { rules: [], sha256: null };
    const sha256 = await blobs.put(fetched.bytes);
    return { rules: parseRobots(new TextDecoder().decode(fetched.bytes), ROBOTS_AGENT), sha256 };
  } catch (e) {
    if (signal?.aborted) throw e;
    return { rules: [], sha256: null };
  }
}

/** The Allow/Disallow rules of the group naming `agent`, else of `*` (RFC 9309). */
export function parseRobots(text: string, agent: string): Robots["rules"] {
  const groups: { agents: string[]; rules: Robots["rules"] }[] = [];
  let current: (typeof groups)[number] | null = null;
  let inAgents = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, "").trim();
    const m = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, key, value] = m;
    const field = key!.toLowerCase();
    if (field === "user-agent") {
      if (!inAgents) groups.push((current = { agents: [], rules: [] }));
      current!.agents.push(value!.toLowerCase());
      inAgents = true;
    } else if ((field === "allow" || field === "disallow") && current) {
      inAgents = false;
      if (value) current.rules.push({ allow: field === "allow", path: value });
    } else inAgents = false;
  }
  const own = groups.filter((g) => g.agents.some((a) => a !== "*" && agent.includes(a)));
  const chosen = own.length ? own : groups.filter((g) => g.agents.includes("*"));
  return chosen.flatMap((g) => g.rules);
}

/** The longest matching rule wins; Allow wins a tie; `*` matches anything and a final `$` anchors. */
export function allowed(rules: Robots["rules"], path: string): boolean {
  let best: { allow: boolean; length: number } | null = null;
  for (const rule of rules) {
    const pattern = new RegExp(`^${rule.path.replace(/[.+?^{}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\\\$$|\$$/, "$")}`);
    if (!pattern.test(path)) continue;
    if (!best || rule.path.length > best.length || (rule.path.length === best.length && rule.allow)) best = { allow: rule.allow, length: rule.path.length };
  }
  return best?.allow ?? true;
}
