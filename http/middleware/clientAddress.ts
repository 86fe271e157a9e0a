import type { Context } from "hono";

/**
 * The peer's address: @hono/node-server passes the Node request as env, Deno.serve
 * its connection info. Forwarding headers are not trusted (anyone can send them).
 */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } }; remoteAddr?: { hostname?: string } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? env?.remoteAddr?.hostname ?? "unknown";
}
