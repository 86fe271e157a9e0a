import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import { PROBLEM_TYPE, problemBody } from "../problem.ts";

/**
 * Requests Node refuses before the app sees them (headers over its limit, a
 * malformed request line) get a problem+json answer like every other error,
 * instead of Node's bare status line. The connection is closed after it:
 * what follows on it cannot be parsed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || (error.code === "ECONNRESET")) return void socket.destroy();
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const status = tooLarge ? 431 : 400;
  const requestId = randomUUID();
  const problem = tooLarge
    ? problemBody(431, "HEADERS_TOO_LARGE", "the request's headers exceed the server's limit; send fewer or shorter headers")
    : problemBody(400, "BAD_REQUEST", "the request could not be parsed as HTTP");
  const body = JSON.stringify({ ...problem, requestId });
  socket.end(
    `HTTP/1.1 ${status} ${problem.title}\r\ncontent-type: ${PROBLEM_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`,
  );
}
