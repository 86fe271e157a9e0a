import { parseIp } from "../core/ipAddress.ts";

/** A comma-separated flag's values; undefined when the flag was not given (the variable applies). */
export const commaList = (value: string | undefined): string[] | undefined => (value === undefined ? undefined : value.split(",").map((v) => v.trim()).filter(Boolean));

/**
 * `serve`'s CORS origins and trusted proxies, checked: an origin is
 * scheme://host[:port] exactly as a browser sends it (no path, no "*": a
 * wildcard would let any site drive a user's key), a proxy an address or a
 * CIDR range. A string is the one-line error naming the bad value.
 */
export function httpAccess(corsOrigins: readonly string[], trustedProxies: readonly string[]): { corsOrigins: string[]; trustedProxies: string[] } | string {
  for (const origin of corsOrigins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {}
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, "")) {
      return `--cors-origin must be an origin like https://app.example.com (scheme, host, optional port; no path, no "*"), got "${origin}"`;
    }
  }
  for (const proxy of trustedProxies) {
    const [address, bits, extra] = proxy.split("/");
    const bytes = parseIp(address!);
    const max = bytes ? bytes.length * 8 : 0;
    if (!bytes || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))) {
      return `--trusted-proxy must be an IP address or CIDR range like 10.0.0.0/8, got "${proxy}"`;
    }
  }
  return { corsOrigins: corsOrigins.map((o) => o.replace(/\/$/, "")), trustedProxies: [...trustedProxies] };
}
