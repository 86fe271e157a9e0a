import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

/** What kind of address a host is, for refusing private networks and this machine. */
export type AddressKind = "public" | "loopback" | "private";

/** Loopback (127/8, ::1, localhost) and private or link-local ranges are not the open web. */
export function addressKind(ip: string): AddressKind {
  const v4 = ip.startsWith("::ffff:") ? ip.slice(7) : ip;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split(".").map(Number);
    if (a === 127) return "loopback";
    if (a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127) || a >= 224) {
      return "private";
    }
    return "public";
  }
  const v6 = ip.toLowerCase();
  if (v6 === "::1") return "loopback";
  if (v6 === "::" || v6.startsWith("fc") || v6.startsWith("fd") || v6.startsWith("fe80") || v6.startsWith("ff")) return "private";
  return "public";
}

export interface AddressPolicy {
  /** Allow 127.0.0.0/8, ::1 and localhost (tests serve pages from a local server). */
  allowLoopback?: boolean;
  /** Allow private and link-local networks (an intranet host). */
  allowPrivate?: boolean;
}

/**
 * The reason a host may not be fetched from, or null. Host names are resolved
 * and every address checked, so a public name pointing at this machine is
 * refused too. (A name that resolves differently at connect time is not caught.)
 */
export async function refusedAddress(hostname: string, policy: AddressPolicy): Promise<string | null> {
  const host = hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else if (host === "localhost" || host.endsWith(".localhost")) addresses = ["127.0.0.1"];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return null; // the fetch itself reports a name that does not resolve
    }
  }
  for (const address of addresses) {
    const kind = addressKind(address);
    if (kind === "loopback" && !policy.allowLoopback) return `${hostname} is this machine (${address}); loopback addresses are not fetched unless the host allows them`;
    if (kind === "private" && !policy.allowPrivate) return `${hostname} is on a private network (${address}); private addresses are not fetched unless the host allows them`;
  }
  return null;
}
