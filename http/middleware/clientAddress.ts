import type { Context } from "hono";
import { matchesAny } from "../../core/ipAddress.ts";

/**
 * The client's address. The peer's, from @hono/node-server's Node request or
 * Deno.serve's connection info; when the peer is one of `trustedProxies`
 * (addresses or CIDR ranges), the `X-Forwarded-For` entries are read from the
 * right, skipping trusted proxies, and the first other address is the client.
 * Anyone can send the header: from any other peer it is ignored, and entries
 * left of the first untrusted one (the client's own claims) are never read.
 */
export function clientAddress(c: Context, trustedProxies: readonly string[] = []): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } }; remoteAddr?: { hostname?: string } } | undefined;
  const peer = env?.incoming?.socket?.remoteAddress ?? env?.remoteAddr?.hostname ?? "unknown";
  if (!trustedProxies.length || !matchesAny(peer, trustedProxies)) return peer;
  const hops = (c.req.header("x-forwarded-for") ?? "").split(",").map((h) => h.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!matchesAny(hops[i]!, trustedProxies)) return hops[i]!;
  return hops[0] ?? peer;
}
