/**
 * Resolves after `ms`, or at once when `signal` aborts. The abort listener is
 * removed when the time is up: a loop that sleeps many times on one long-lived
 * signal (a worker backing off through an outage) must not pile listeners on it
 * (Node warns past ten: MaxListenersExceededWarning).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
