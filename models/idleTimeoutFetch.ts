/**
 * The SDK's timeout covers only the wait for response headers; a stream that
 * then goes silent would hang forever. Anthropic pings quiet streams, so a body
 * that yields no bytes for `idleMs` is treated as a dead connection.
 */
export class StreamStalledError extends Error {
  constructor(readonly idleMs: number) {
    super(`no bytes received for ${idleMs} ms`);
    this.name = "StreamStalledError";
  }
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Wraps `base` so every response body errors with StreamStalledError after `idleMs` of silence. */
export function idleTimeoutFetch(idleMs: number, base: Fetch = (input, init) => fetch(input, init)): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const { status, statusText, headers } = response;
    return new Response(guardIdle(response.body, idleMs), { status, statusText, headers });
  };
}

function guardIdle(body: ReadableStream<Uint8Array>, idleMs: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  // Pull-based: the timer runs only while the consumer waits for bytes.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StreamStalledError(idleMs)), idleMs);
      });
      try {
        const chunk = await Promise.race([reader.read(), stalled]);
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      } catch (e) {
        reader.cancel(e).catch(() => {});
        controller.error(e);
      } finally {
        clearTimeout(timer);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
