/** At most this many requests to one host at once. */
export const PER_HOST_CONCURRENCY = 2;
/** The least time between the starts of two requests to one host, unless configured (ARIADNE_FETCH_INTERVAL_MS). */
export const DEFAULT_HOST_INTERVAL_MS = 1_000;

interface HostState {
  running: number;
  nextStartAt: number;
  waiting: (() => void)[];
}

const hosts = new Map<string, HostState>();

/**
 * Runs `request` when its host allows: at most PER_HOST_CONCURRENCY at once per
 * host, and starts at least `intervalMs` apart, across every run of this process.
 */
export async function throughHostGate<T>(host: string, intervalMs: number, request: () => Promise<T>): Promise<T> {
  let state = hosts.get(host);
  if (!state) hosts.set(host, (state = { running: 0, nextStartAt: 0, waiting: [] }));
  while (state.running >= PER_HOST_CONCURRENCY) await new Promise<void>((resolve) => state!.waiting.push(resolve));
  state.running++;
  const startAt = Math.max(Date.now(), state.nextStartAt);
  state.nextStartAt = startAt + intervalMs;
  try {
    if (startAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, startAt - Date.now()));
    return await request();
  } finally {
    state.running--;
    state.waiting.shift()?.();
    if (state.running === 0 && state.waiting.length === 0 && state.nextStartAt <= Date.now()) hosts.delete(host);
  }
}
