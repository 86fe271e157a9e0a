import pg from "pg";

/** The server-level database used to create and drop others; trust auth on 127.0.0.1 by default. */
export const DEFAULT_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

export interface ScratchDatabase {
  /** URL of the new database, on the admin URL's server. */
  url: string;
  drop(): Promise<void>;
}

/**
 * A throwaway database for tests and benches: created fresh (dropping a
 * leftover of the same name), dropped WITH (FORCE) when done.
 */
export async function createScratchDatabase(name: string, adminUrl = DEFAULT_ADMIN_URL): Promise<ScratchDatabase> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`scratch database name must be a plain identifier: ${name}`);
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Runs one statement on the admin database, on a connection of its own. */
export async function adminQuery(adminUrl: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
