/**
 * Wraps a best-effort send so that a burst of calls costs few sends: the first
 * call sends at once; calls made while a send runs, or within `minIntervalMs`
 * after it, share one more send at the end of that interval, so nothing goes
 * unannounced for longer than about the interval. Failures are dropped.
 */
export function coalesce(send: () => Promise<unknown>, minIntervalMs = 0): () => void {
  let busy = false;
  let again = false;
  const run = async () => {
    busy = true;
    try {
      do {
        again = false;
        await send();
        if (minIntervalMs > 0) await pause(minIntervalMs);
      } while (again);
    } catch {
      // Closed or unreachable: there is nobody to tell.
    } finally {
      busy = false;
    }
  };
  return () => {
    if (busy) again = true;
    else void run();
  };
}

/** A pause that does not keep the process alive by itself. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms) as unknown as { unref?: () => void };
    timer.unref?.();
  });
}
