import { Kysely, PostgresDialect } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
// PGlite (its module and its runtime) is imported when an embedded store is opened: a process on PostgreSQL never needs it.
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { DEFAULT_DATABASE_WAIT_MS, isDatabaseUnavailable, retryOnConnectionLoss } from "../core/connectionLoss.ts";
import { Buffer } from "node:buffer";
import { ConfigError } from "../core/errors.ts";
import { DiskFullError, isDiskFull } from "../core/diskFull.ts";
import { checkDataDir } from "./checkDataDir.ts";
import { coalesce } from "./coalesce.ts";
import { lockDataDir } from "./lockDataDir.ts";
import { pgliteTemplate, seedDataDir } from "./pgliteTemplate.ts";
import { sharedListener } from "./sharedListener.ts";
import { bytesFree, isOutOfSpace } from "./spaceLeft.ts";
import type { Schema } from "./schema.ts";

export type Engine = "postgres" | "pglite";

export interface Database {
  readonly db: Kysely<Schema>;
  readonly engine: Engine;
  /** Human-readable location, with no password: "postgres://host:port/db" or "pglite:.ariadne/data". */
  readonly location: string;
  /**
   * Calls back on every notification on the channel; resolves to an unsubscribe.
   * On PostgreSQL every listener of the Database shares one LISTEN connection
   * (sharedListener.ts). A payload is one or more notices joined by newlines;
   * an empty one says "anything may have changed" (a notice without payload,
   * or the connection came back after notifications may have been missed).
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * Notifies the channel's listeners, best effort and without waiting: on
   * PostgreSQL a NOTIFY of its own (a burst of calls shares one statement, their
   * notices joined by newlines up to PostgreSQL's payload limit), reaching every
   * process; on PGlite an in-process call. Without it, listeners rely on polling.
   * `notice` must hold no newline.
   */
  notify?(channel: string, notice?: string): void;
  /**
   * Whether the store's own disk is full (an embedded store on a data directory):
   * asked when a write fails in a way PGlite does not explain (it may abort rather
   * than raise 53100). Absent where the client cannot tell (PostgreSQL says 53100).
   */
  outOfSpace?(): Promise<boolean>;
  /** Queries waiting for one of the pool's connections now (PostgreSQL); absent where there is no pool. */
  waiting?(): number;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** A postgres:// URL. When absent, the embedded PGlite engine is used. */
  url?: string;
  /** PGlite data directory, or "memory://" for a throwaway store. Default `.ariadne/data`. */
  dataDir?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
  /**
   * How long to wait for an unreachable PostgreSQL (refused, restarting,
   * failing over) before giving up: at open (`atOpenMs`, default `ms`; Infinity
   * for a worker or server, which wait for it however long) and for every
   * connection later (`ms`, default 60 s). `log` hears once when a wait starts
   * (default: a line on stderr).
   */
  wait?: { ms?: number; atOpenMs?: number; log?: (line: string) => void };
}


export const DEFAULT_DATA_DIR = ".ariadne/data";

/**
 * PGlite's settings beside its defaults. No startup progress timer: it re-arms itself forever, so a start
 * that fails (a full disk) would keep the process alive after the error was reported. Shared buffers of
 * 16 MB, not PGlite's 160 MB: the buffers live in the process's WebAssembly memory, which never shrinks,
 * and the files behind them are in the OS's page cache anyway (opening a store: 278 -> 171 MB of RSS).
 */
export const PGLITE_SETTINGS = ["-c", "log_startup_progress_interval=0", "-c", "shared_buffers=16MB"];

/** At most one NOTIFY per channel this often (PostgreSQL); listeners hear of an append within about this. */
const NOTIFY_INTERVAL_MS = 10;

/** Opens PostgreSQL when a URL is given (DATABASE_URL), otherwise embedded PGlite. */
export async function openDatabase(options: OpenOptions = {}): Promise<Database> {
  return options.url ? openPostgres(options.url, options.poolSize ?? 10, options.wait ?? {}) : openPglite(options.dataDir ?? DEFAULT_DATA_DIR);
}

async function openPostgres(url: string, poolSize: number, wait: NonNullable<OpenOptions["wait"]>): Promise<Database> {
  const where = describeUrl(url);
  const waitMs = wait.ms ?? DEFAULT_DATABASE_WAIT_MS;
  const say = wait.log ?? ((line: string) => console.error(`ariadne: ${line}`));
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000 });
  // An idle client's socket error must not crash the process; the next query reports it.
  pool.on("error", () => {});
  // So must a checked-out client's (between a transaction's statements, when the server restarts):
  // the query in flight gets the error; the pool drops the dead client when it comes back.
  pool.on("connect", (client) => client.on("error", () => {}));
  // Waits out a server that is down or restarting (connection refused, "not yet accepting connections"),
  // saying so once an outage (however many connections wait through it); anything else (a wrong
  // password, no such database) is an answer at once.
  let down = false;
  const connect = async (maxWaitMs: number) => {
    const client = await retryOnConnectionLoss(`connect to PostgreSQL at ${where}`, () => pool.connect(), {
      maxWaitMs,
      onRetry: (_what, e) => {
        if (down) return;
        down = true;
        say(`waiting for PostgreSQL at ${where} (${describeCause(e)}); ${Number.isFinite(maxWaitMs) ? `giving up after ${Math.round(maxWaitMs / 1000)} s` : "until it answers"}`);
      },
    });
    down = false;
    return client;
  };
  try {
    const client = await connect(wait.atOpenMs ?? waitMs);
    client.release();
  } catch (cause) {
    await pool.end().catch(() => {});
    throw new ConfigError(`cannot reach PostgreSQL at ${where}: ${describeCause(isDatabaseUnavailable(cause) ? (cause as Error).cause : cause)}`, { cause });
  }
  // Every later connection waits too, within `ms`: reads and writes of any command ride out a restart.
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: { connect: () => connect(waitMs), end: () => pool.end() } }) });
  const notifiers = new Map<string, { pending: Set<string>; send: () => void }>();
  const listener = sharedListener(url);
  return {
    db,
    engine: "postgres",
    location: `postgres://${where}`,
    waiting: () => pool.waitingCount,
    notify(channel, notice = "") {
      let notifier = notifiers.get(channel);
      // Each NOTIFY is a small transaction of its own (it even takes a transaction id), so a
      // stream of appends shares one statement every NOTIFY_INTERVAL_MS.
      if (!notifier) {
        const pending = new Set<string>();
        const send = coalesce(() => {
          const payloads = joinNotices(pending);
          pending.clear();
          return pool.query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", [channel, payloads]);
        }, NOTIFY_INTERVAL_MS);
        notifiers.set(channel, (notifier = { pending, send }));
      }
      notifier.pending.add(notice);
      notifier.send();
    },
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    close: () => listener.close().finally(() => db.destroy()),
  };
}

/** The embedded store's template for the installed PGlite (db/pgliteTemplate.ts), made when missing: `npm ci` makes it. */
export async function prepareEmbeddedTemplate(): Promise<string> {
  const { PGlite } = await import("@electric-sql/pglite");
  return pgliteTemplate([...PGlite.defaultStartParams, ...PGLITE_SETTINGS]);
}

async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, ...PGLITE_SETTINGS];
  let pglite: PGlite;
  let unlock = () => {};
  try {
    if (dataDir !== "memory://") await checkDataDir(dataDir);
    if (dataDir !== "memory://") unlock = lockDataDir(dataDir);
    if (dataDir !== "memory://") await seedDataDir(dataDir, PGLITE_START_PARAMS);
    pglite = dataDir === "memory://" ? new PGlite({ startParams: PGLITE_START_PARAMS }) : new PGlite(dataDir, { startParams: PGLITE_START_PARAMS });
    await pglite.waitReady;
  } catch (cause) {
    unlock();
    // A full disk is said as such: PGlite reports it as "failed to initialize properly", the lock as ENOSPC.
    if (dataDir !== "memory://" && (isDiskFull(cause) || (await isOutOfSpace(dataDir)))) {
      const free = await bytesFree(dataDir);
      throw new DiskFullError(dataDir, `the embedded store cannot start (${free === null ? "free space unknown" : `${free} bytes free`}); free some space and run the command again`, { cause });
    }
    if (cause instanceof ConfigError) throw cause;
    throw new ConfigError(`cannot open the embedded store at ${dataDir}: ${describeCause(cause)}`, { cause });
  }
  const database = pgliteDatabase(pglite, `pglite:${dataDir}`);
  return {
    ...database,
    ...(dataDir === "memory://" ? {} : { outOfSpace: () => isOutOfSpace(dataDir) }),
    close: () => database.close().finally(unlock),
  };
}

/** A Database over a PGlite instance opened by the caller (the benches use its query() directly too). */
export function pgliteDatabase(pglite: PGlite, location: string): Database {
  const db = new Kysely<Schema>({ dialect: new PGliteDialect(pglite) });
  // Only this process can open the store, so notifications are plain callbacks: no query (which
  // costs a PGlite round trip) and no LISTEN run beside Kysely's queue, inside someone's transaction.
  const listeners = new Map<string, Set<(payload: string) => void>>();
  return {
    db,
    engine: "pglite",
    location,
    async listen(channel, onNotify) {
      const forChannel = listeners.get(channel) ?? new Set();
      listeners.set(channel, forChannel.add(onNotify));
      return async () => void forChannel.delete(onNotify);
    },
    notify(channel, notice = "") {
      for (const onNotify of listeners.get(channel) ?? []) queueMicrotask(() => onNotify(notice));
    },
    close: () => db.destroy(),
  };
}

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const MAX_PAYLOAD_BYTES = 7_900;

/**
 * Notices joined by newlines into as few payloads as fit; an empty notice
 * ("anything may have changed") says all the others too, so it goes alone.
 */
export function joinNotices(notices: Iterable<string>): string[] {
  const all = [...notices];
  if (all.length === 0) return [];
  if (all.includes("")) return [""];
  const payloads: string[] = [];
  let current = "";
  let bytes = 0;
  for (const notice of all) {
    const size = Buffer.byteLength(notice);
    // A notice too big for any payload cannot be routed: it becomes "anything may have changed".
    if (size > MAX_PAYLOAD_BYTES) return [""];
    if (current && bytes + 1 + size > MAX_PAYLOAD_BYTES) {
      payloads.push(current);
      current = "";
      bytes = 0;
    }
    current = current ? `${current}\n${notice}` : notice;
    bytes += (bytes ? 1 : 0) + size;
  }
  payloads.push(current);
  return payloads;
}

function describeUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid URL (expected postgres://user@host:port/db)`);
  }
  // pg would quietly fill the gaps (localhost, the user's name as database); a URL missing them is a mistake.
  const host = u.hostname || u.searchParams.get("host");
  const database = decodeURIComponent(u.pathname.replace(/^\//, ""));
  const given = `DATABASE_URL ${JSON.stringify(redact(u))}`;
  if (!/^postgres(ql)?:$/.test(u.protocol)) throw new ConfigError(`${given} is not a postgres:// URL (expected postgres://user@host:port/db)`);
  const missing = [!host && "host", !database && "database name"].filter(Boolean);
  if (missing.length) throw new ConfigError(`${given} names no ${missing.join(" and no ")} (expected postgres://user@host:port/db)`);
  return `${host}:${u.port || "5432"}/${database}`;
}

/** The URL as given, to say what was wrong with it, never with its password. */
function redact(u: URL): string {
  const copy = new URL(u);
  if (copy.password) copy.password = "***";
  return copy.toString();
}

function describeCause(cause: unknown): string {
  const e = cause as { code?: string; message?: string; errors?: unknown[]; errno?: number };
  // Node reports a failed dual-stack connect as an AggregateError without a message.
  if (!e?.message && Array.isArray(e?.errors) && e.errors.length) return describeCause(e.errors[0]);
  const known: Record<string, string> = {
    ECONNREFUSED: "connection refused (is the server running and listening there?)",
    ENOTFOUND: "host not found",
    ETIMEDOUT: "connection timed out",
    EHOSTUNREACH: "host unreachable",
  };
  // A server error's own message names the role or database ("role \"x\" does not exist"); a code alone hides it.
  const text = e?.code && known[e.code] ? known[e.code] : e?.message || (e?.errno !== undefined ? `${(e as Error).name ?? "error"} errno ${e.errno}` : String(cause));
  return e?.code ? `${text} (${e.code})` : text;
}
