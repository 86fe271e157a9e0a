import { lookup } from "node:dns/promises";
import { networkInterfaces } from "node:os";
import { embeddedIpv4, formatIp, inCidr, parseIp } from "../../core/ipAddress.ts";

/**
 * The one address policy of every web request (web_fetch, its redirects, search
 * providers, robots.txt): what kind of address a host is, checked on the
 * address a connection is really made to (fetchPinned.ts connects to the
 * address checked here, so a second DNS answer cannot differ).
 */
export type AddressKind = "public" | "loopback" | "private";

/** Not the open web: private, shared, link-local, documentation, benchmark, multicast and reserved ranges. */
const PRIVATE_V4 = [
  "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "169.254.0.0/16", "172.16.0.0/12", "192.0.0.0/24", "192.0.2.0/24",
  "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
];
const PRIVATE_V6 = [
  "::/128", "100::/64", "2001:db8::/32", "2001:10::/28", "2001:20::/28", "64:ff9b:1::/48", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
];

/** This machine's own addresses, on every interface: a service bound to 0.0.0.0 answers on each of them as on loopback. */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  try {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) {
      const bytes = parseIp(a.address);
      if (bytes) own.add(formatIp(bytes));
    }
  } catch {
    // No interface list (a runtime without the permission): the ranges still hold.
  }
  return own;
}

/** Loopback (127/8, ::1, this machine's own addresses) and private ranges, in every IPv6 form that carries an IPv4 address. */
export function addressKind(ip: string): AddressKind {
  const bytes = parseIp(ip);
  if (!bytes) return "private"; // not an address at all: never connect to it
  const v4 = bytes.length === 4 ? bytes : embeddedIpv4(bytes);
  if (ownAddresses().has(formatIp(bytes)) || (v4 && ownAddresses().has(formatIp(v4)))) return "loopback";
  if (v4) {
    if (inCidr(v4, "127.0.0.0/8")) return "loopback";
    return PRIVATE_V4.some((c) => inCidr(v4, c)) ? "private" : "public";
  }
  if (inCidr(bytes, "::1/128")) return "loopback";
  return PRIVATE_V6.some((c) => inCidr(bytes, c)) ? "private" : "public";
}

export interface AddressPolicy {
  /** Allow 127.0.0.0/8, ::1, localhost and this machine's own addresses (tests serve pages from a local server). */
  allowLoopback?: boolean;
  /** Allow private and link-local networks (an intranet host). */
  allowPrivate?: boolean;
  /** The DNS resolver (default the system's, getaddrinfo); tests pass a fixed answer. */
  resolve?: (hostname: string) => Promise<string[]>;
}

const systemResolve = async (hostname: string) => (await lookup(hostname, { all: true })).map((a) => a.address);

/** The host as the URL parser reads it (so 2130706433, 0x7f.1 and 017700000001 are 127.0.0.1), without brackets or a final dot. */
export function canonicalHost(hostname: string): string {
  let host = hostname.trim().toLowerCase();
  try {
    host = new URL(`http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}/`).hostname;
  } catch {
    // Left as given: resolving it fails and says so.
  }
  return host.replace(/^\[|\]$/g, "").replace(/\.$/, "");
}

/** Why an address may not be connected to under the policy, or null. */
export function refusedIp(hostname: string, address: string, policy: AddressPolicy): string | null {
  const kind = addressKind(address);
  if (kind === "loopback" && !policy.allowLoopback) return `${hostname} is this machine (${address}); loopback addresses are not fetched unless the host allows them`;
  if (kind === "private" && !policy.allowPrivate) return `${hostname} is on a private network (${address}); private addresses are not fetched unless the host allows them`;
  return null;
}

export type Resolved = { ok: true; addresses: string[] } | { ok: false; reason: string };

/**
 * Resolves a host and checks every address it names: a public name with one
 * private answer is refused (the connection could be made to any of them).
 * A name that does not resolve is `ok: false` with the resolver's reason.
 */
export async function resolveChecked(hostname: string, policy: AddressPolicy): Promise<Resolved> {
  const host = canonicalHost(hostname);
  let addresses: string[];
  if (parseIp(host)) addresses = [host];
  else if (host === "localhost" || host.endsWith(".localhost")) addresses = ["127.0.0.1"];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host);
    } catch (error) {
      return { ok: false, reason: `${hostname} does not resolve (${(error as { code?: string }).code ?? (error as Error).message})` };
    }
    if (!addresses.length) return { ok: false, reason: `${hostname} does not resolve (no address)` };
  }
  for (const address of addresses) {
    const refused = refusedIp(hostname, address, policy);
    if (refused) return { ok: false, reason: refused };
  }
  return { ok: true, addresses };
}

/**
 * The reason a host may not be fetched from, or null. Host names are resolved
 * and every address checked; a name that does not resolve is left for the
 * fetch to report. fetchPinned connects only to addresses checked this way.
 */
export async function refusedAddress(hostname: string, policy: AddressPolicy): Promise<string | null> {
  const resolved = await resolveChecked(hostname, policy);
  if (resolved.ok || / does not resolve /.test(resolved.reason)) return null;
  return resolved.reason;
}
