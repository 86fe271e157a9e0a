import type { MiddlewareHandler } from "hono";
import { problemBody, problemResponse } from "../problem.ts";

export interface BodyLimitOptions {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /**
   * How much of a refused body is read and dropped before the 413 is sent.
   * A client writes its whole body before it reads the answer; answering
   * earlier leaves the rest on the connection, and the server then cuts it
   * (the client sees "other side closed", not its 413, and so does its next
   * request on that keep-alive connection). Past this, the 413 says
   * `Connection: close`. Default 1 MiB.
   */
  drainBytes?: number;
}

/**
 * Refuses bodies over the limit with a 413 problem, whether the size is
 * declared (Content-Length) or found while reading (chunked). Only requests
 * that may carry a body are read.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const drainBytes = options.drainBytes ?? 1024 * 1024;
  const tooLarge = async (c: Parameters<MiddlewareHandler>[0], rest: ReadableStream<Uint8Array> | null) => {
    const drained = rest ? await drain(rest, drainBytes) : true;
    const problem = problemBody(413, "TOO_LARGE", `the body exceeds ${options.maxBytes} bytes`);
    return problemResponse(c, problem, drained ? {} : { connection: "close" });
  };
  return async (c, next) => {
    const request = c.req.raw;
    if (request.method === "GET" || request.method === "HEAD" || !request.body) return next();
    const declared = request.headers.get("content-length");
    if (declared !== null) {
      if (Number(declared) > options.maxBytes) return tooLarge(c, request.body);
      return next();
    }
    // No declared size: read up to the limit, and hand the handler what was read.
    const reader = request.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) {
        reader.releaseLock();
        return tooLarge(c, request.body);
      }
      chunks.push(value);
    }
    c.req.raw = new Request(request, { body: concat(chunks, size) as Uint8Array<ArrayBuffer> });
    return next();
  };
}

/** Reads and drops a body; false when more than `limit` bytes remained (the rest is left unread). */
async function drain(body: ReadableStream<Uint8Array>, limit: number): Promise<boolean> {
  const reader = body.getReader();
  let read = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return true;
      read += value.byteLength;
      if (read > limit) {
        await reader.cancel().catch(() => {});
        return false;
      }
    }
  } catch {
    return false;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
