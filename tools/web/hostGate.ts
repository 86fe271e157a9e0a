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
  const startAt = Math.max(performance.now(), state.nextStartAt);
  state.nextStartAt = startAt + intervalMs;
  try {
    // Spacing on the monotonic clock: the wall clock can be stepped (CI saw two starts 41 ms apart under a
    // 50 ms interval, the gate reading Date.now() and the test performance.now()); a timer may fire early.
    while (startAt > performance.now()) await new Promise((resolve) => setTimeout(resolve, Math.ceil(startAt - performance.now())));
    return await request();
  } finally {
    state.running--;
    state.waiting.shift()?.();
    if (state.running === 0 && state.waiting.length === 0 && state.nextStartAt <= performance.now()) hosts.delete(host);
  }
}
