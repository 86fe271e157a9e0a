import pg from "pg";

/** The application_name of the LISTEN connection, so pg_stat_activity tells it from the pool's. */
export const LISTEN_APPLICATION_NAME = "ariadne-listen";

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5_000;

export interface SharedListener {
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * One LISTEN connection for a whole Database, however many listeners (hosted
 * runs, the worker, subscriptions) it serves: connections stay bounded by the
 * pool, not by the number of runs. Opened on the first listener, closed with
 * the last. A lost connection is reopened with backoff, once for everyone;
 * notifications sent while it was down are lost, so every listener is then
 * called with an empty payload ("anything may have changed").
 */
export function sharedListener(url: string): SharedListener {
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let client: pg.Client | null = null;
  /** The channels the open connection listens to. */
  let listening = new Set<string>();
  let connecting: Promise<pg.Client> | null = null;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retryMs = FIRST_RETRY_MS;
  let closed = false;

  const deliver = (channel: string, payload: string) => {
    for (const onNotify of listeners.get(channel) ?? []) {
      try {
        onNotify(payload);
      } catch {
        // One listener's failure is its own: the others still hear of it.
      }
    }
  };
  const wanted = () => !closed && listeners.size > 0;

  const lost = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    c.end().catch(() => {});
    scheduleReconnect();
  };
  const scheduleReconnect = () => {
    if (!wanted() || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().then(
        () => {
          retryMs = FIRST_RETRY_MS;
          for (const channel of [...listeners.keys()]) deliver(channel, "");
        },
        () => {
          retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
          scheduleReconnect();
        },
      );
    }, retryMs);
    (retryTimer as { unref?: () => void }).unref?.();
  };

  const listenOn = async (c: pg.Client, channel: string) => {
    if (listening.has(channel) || client !== c) return;
    listening.add(channel);
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
  };
  const connect = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: url, application_name: LISTEN_APPLICATION_NAME });
      c.on("error", () => lost(c));
      c.on("end", () => lost(c));
      c.on("notification", (msg) => deliver(msg.channel, msg.payload ?? ""));
      try {
        await c.connect();
      } catch (e) {
        c.removeAllListeners("end");
        await c.end().catch(() => {});
        throw e;
      }
      client = c;
      listening = new Set();
      try {
        for (const channel of [...listeners.keys()]) await listenOn(c, channel);
      } catch (e) {
        lost(c);
        throw e;
      }
      if (!wanted()) await hangUp();
      return c;
    })().finally(() => (connecting = null));
    return connecting;
  };

  const hangUp = async () => {
    const c = client;
    client = null;
    clearTimeout(retryTimer);
    retryTimer = undefined;
    await c?.end().catch(() => {});
  };

  return {
    async listen(channel, onNotify) {
      const forChannel = listeners.get(channel) ?? new Set();
      listeners.set(channel, forChannel.add(onNotify));
      const unlisten = async () => {
        forChannel.delete(onNotify);
        if (forChannel.size > 0 || listeners.get(channel) !== forChannel) return;
        listeners.delete(channel);
        if (listeners.size === 0) await hangUp();
        else if (client && listening.delete(channel)) await client.query(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
      };
      try {
        await listenOn(await connect(), channel);
      } catch (e) {
        await unlisten();
        throw e;
      }
      return unlisten;
    },
    async close() {
      closed = true;
      listeners.clear();
      await connecting?.catch(() => {});
      await hangUp();
    },
  };
}
