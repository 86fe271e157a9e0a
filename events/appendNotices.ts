import type { Database } from "../db/openDatabase.ts";
import { EVENTS_CHANNEL } from "./subscribe.ts";

/** What an append notice says: this stream of this run now stands at this version. */
export interface AppendNotice {
  runId: string;
  streamId: string;
  version: number;
}

/** One notice per append, as the store sends it after the commit (JSON: it holds no newline). */
export const encodeAppendNotice = (n: AppendNotice): string => JSON.stringify([n.runId, n.streamId, n.version]);

/**
 * The notices of one payload, or null when it says "anything may have changed":
 * empty (a notice from an older version, or the connection came back after
 * notifications may have been missed), or not in this form (the stream id
 * alone, as the SQL append of migrations 0001-0002 sent it).
 */
export function decodeAppendNotices(payload: string): AppendNotice[] | null {
  if (!payload) return null;
  const notices: AppendNotice[] = [];
  for (const line of payload.split("\n")) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return null;
    }
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || typeof entry[1] !== "string" || typeof entry[2] !== "number") return null;
    notices.push({ runId: entry[0], streamId: entry[1], version: entry[2] });
  }
  return notices;
}

export interface AppendWatch {
  /** Only this run's appends (a map lookup per notice); absent: every run's. */
  runId?: string;
  /** A stream of the watched run(s) was appended to and now stands at `version`. */
  onAppend(streamId: string, version: number): void;
  /** Anything may have changed (see decodeAppendNotices): re-check what is watched. */
  onAnything(): void;
}

interface Router {
  byRun: Map<string, Set<AppendWatch>>;
  everyRun: Set<AppendWatch>;
  unlisten: Promise<() => Promise<void>> | null;
}

const routers = new WeakMap<Database, Router>();

/**
 * Watches the store's appends through one listener per Database, shared by
 * every watch in the process, however many runs it hosts: each notice goes to
 * the watches of its run only. Resolves to the function that stops watching.
 */
export async function watchAppends(database: Database, watch: AppendWatch): Promise<() => Promise<void>> {
  let router = routers.get(database);
  if (!router) {
    const r: Router = { byRun: new Map(), everyRun: new Set(), unlisten: null };
    routers.set(database, (router = r));
  }
  const r = router;
  const watches = watch.runId === undefined ? r.everyRun : (r.byRun.get(watch.runId) ?? new Set());
  if (watch.runId !== undefined) r.byRun.set(watch.runId, watches);
  watches.add(watch);
  const stop = async () => {
    if (!watches.delete(watch)) return;
    if (watch.runId !== undefined && watches.size === 0) r.byRun.delete(watch.runId);
    if (r.byRun.size === 0 && r.everyRun.size === 0 && r.unlisten) {
      const unlisten = r.unlisten;
      r.unlisten = null;
      await (await unlisten.catch(() => null))?.();
    }
  };
  r.unlisten ??= database.listen(EVENTS_CHANNEL, (payload) => route(r, payload));
  try {
    await r.unlisten;
  } catch (e) {
    r.unlisten = null;
    await stop();
    throw e;
  }
  return stop;
}

function route(r: Router, payload: string): void {
  const notices = decodeAppendNotices(payload);
  if (!notices) {
    for (const w of [...r.everyRun, ...[...r.byRun.values()].flatMap((s) => [...s])]) w.onAnything();
    return;
  }
  for (const n of notices) {
    for (const w of r.byRun.get(n.runId) ?? []) w.onAppend(n.streamId, n.version);
    for (const w of r.everyRun) w.onAppend(n.streamId, n.version);
  }
}
