import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const exec = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own: `initdb` into a temporary directory (as
 * the postgres user when run as root), started on a free port on 127.0.0.1 with
 * its socket in that directory. A test that restarts or stops a database does it
 * to this one, never to the shared server on 5432.
 */
export interface OwnCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  adminUrl: string;
  port: number;
  dir: string;
  /** `pg_ctl restart -m MODE`, waiting until it accepts connections again. */
  restart(mode: "fast" | "immediate" | "smart"): Promise<void>;
  stop(mode: "fast" | "immediate" | "smart"): Promise<void>;
  start(): Promise<void>;
  /** When the server (postmaster) last started, as the server reports it. */
  startedAt(): Promise<string>;
  /** Stops it (immediately) and removes its directory. */
  destroy(): Promise<void>;
}

/** Where the PostgreSQL server binaries are (the newest /usr/lib/postgresql/N/bin), or null. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(a) - Number(b));
  return versions.length ? join(root, versions.at(-1)!, "bin") : null;
}

/** Why this machine cannot run a cluster of its own, or null when it can. */
export function ownClusterUnavailable(): string | null {
  if (!postgresBinDir()) return "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (initdb, pg_ctl)";
  // initdb refuses to run as root: as root, the cluster belongs to the postgres user.
  if (process.getuid?.() === 0 && !existsSync("/usr/sbin/runuser") && !existsSync("/sbin/runuser")) {
    return "running as root without runuser: cannot initdb as the postgres user";
  }
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `baseDir`: where the cluster's directory is made (default the temp directory), e.g. a
 * small tmpfs a test fills; `initdbArgs` are added to initdb's (e.g. `--wal-segsize=1`);
 * `walOffBaseDir` keeps `pg_wal` in a directory of its own in the temp directory, so a
 * test that fills `baseDir` fills the data files' disk only.
 */
export async function startOwnCluster(
  options: { settings?: Record<string, string>; baseDir?: string; initdbArgs?: string[]; walOffBaseDir?: boolean } = {},
): Promise<OwnCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(options.baseDir ?? tmpdir(), "ariadne-pg-"));
  const data = join(dir, "data");
  const uid = asRoot ? Number((await exec("id", ["-u", "postgres"])).stdout.trim()) : undefined;
  const gid = asRoot ? Number((await exec("id", ["-g", "postgres"])).stdout.trim()) : undefined;
  const walDir = options.walOffBaseDir ? mkdtempSync(join(tmpdir(), "ariadne-pg-wal-")) : undefined;
  if (asRoot) for (const d of [dir, walDir]) if (d) chownSync(d, uid!, gid!);
  const run = (cmd: string, args: string[]) =>
    asRoot ? exec("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]) : exec(join(bin, cmd), args);
  await run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C", ...(walDir ? [`--waldir=${join(walDir, "pg_wal")}`] : []), ...(options.initdbArgs ?? [])]);
  const port = await freePort();
  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: dir,
    fsync: "off",
    max_connections: "100",
    ...options.settings,
  };
  const opts = Object.entries(settings)
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(" ");
  const log = join(dir, "server.log");
  const ctl = async (args: string[]) => {
    try {
      await run("pg_ctl", ["-D", data, ...args]);
    } catch (e) {
      const err = e as Error & { stderr?: string; stdout?: string };
      throw new Error(`pg_ctl ${args.join(" ")} failed: ${err.stderr || err.stdout || err.message}`);
    }
  };
  const start = () => ctl(["-w", "-t", "60", "-o", opts, "-l", log, "start"]);
  await start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let destroyed = false;
  return {
    adminUrl,
    port,
    dir,
    restart: (mode) => ctl(["-w", "-t", "60", "-m", mode, "-o", opts, "-l", log, "restart"]),
    stop: (mode) => ctl(["-w", "-t", "60", "-m", mode, "stop"]),
    start,
    async startedAt() {
      const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        return String((await client.query("SELECT pg_postmaster_start_time()::text AS t")).rows[0].t);
      } finally {
        await client.end();
      }
    },
    async destroy() {
      if (destroyed) return;
      destroyed = true;
      await ctl(["-m", "immediate", "stop"]).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
      if (walDir) rmSync(walDir, { recursive: true, force: true });
    },
  };
}
