import { isIP } from "node:net";

/**
 * An IP address as its bytes (4 for IPv4, 16 for IPv6), from its text; null
 * when the text is not one. A zone (`fe80::1%eth0`) is dropped. Only the
 * canonical dotted IPv4 form is read here: the WHATWG URL parser (and
 * getaddrinfo) turn decimal, octal and hex spellings into it first.
 */
export function parseIp(text: string): Uint8Array | null {
  const ip = text.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const kind = isIP(ip);
  if (kind === 4) return new Uint8Array(ip.split(".").map(Number));
  if (kind !== 6) return null;
  let head = ip;
  let tail: number[] = [];
  // A dotted IPv4 tail (::ffff:1.2.3.4) is its last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (dotted) {
    tail = dotted[1]!.split(".").map(Number);
    head = ip.slice(0, -dotted[1]!.length);
    head = head.endsWith("::") ? head : head.replace(/:$/, "");
  }
  const [left, right] = head.includes("::") ? head.split("::") : [head, undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").filter((g) => g !== "").map((g) => parseInt(g, 16)) : []);
  const l = groups(left);
  const r = groups(right);
  const fill = 8 - tail.length / 2 - l.length - r.length;
  const all = [...l, ...(right === undefined ? [] : new Array<number>(fill).fill(0)), ...r];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  tail.forEach((b, i) => (bytes[12 + i] = b));
  return bytes;
}

/** The address as text: dotted IPv4, or IPv6 in full lower-case groups (for messages and comparisons). */
export function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(":");
}

/** Whether `bytes` lies in `cidr` ("10.0.0.0/8", "fc00::/7"); an IPv4 address is never in an IPv6 range or the reverse. */
export function inCidr(bytes: Uint8Array, cidr: string): boolean {
  const [base, bitsText] = cidr.split("/");
  const net = parseIp(base!);
  if (!net || net.length !== bytes.length) return false;
  const bits = bitsText === undefined ? net.length * 8 : Number(bitsText);
  for (let i = 0; i < net.length && i * 8 < bits; i++) {
    const take = Math.min(8, bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[i]! & mask) !== (net[i]! & mask)) return false;
  }
  return true;
}

/** Whether `text` is an address matching one of `cidrs` (an address alone is its own /32 or /128); IPv4-mapped IPv6 peers match IPv4 entries. */
export function matchesAny(text: string, cidrs: readonly string[]): boolean {
  const bytes = parseIp(text);
  if (!bytes) return false;
  const v4 = bytes.length === 16 && inCidr(bytes, "::ffff:0:0/96") ? bytes.slice(12) : null;
  return cidrs.some((c) => inCidr(bytes, c) || (v4 !== null && inCidr(v4, c)));
}

/**
 * The IPv4 address an IPv6 address carries, by the transition schemes that
 * route it to that IPv4 host: mapped (::ffff:a.b.c.d), translated
 * (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4
 * (2002:aabb:ccdd::/48) and Teredo (2001::/32, the client's address inverted).
 * Null when it carries none.
 */
export function embeddedIpv4(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length !== 16) return null;
  const zero = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (inCidr(bytes, "::ffff:0:0/96") || inCidr(bytes, "::ffff:0:0:0/96") || inCidr(bytes, "64:ff9b::/96")) return bytes.slice(12);
  // Compatible, but not :: and ::1 (the unspecified and loopback addresses themselves).
  if (zero(0, 12) && !zero(12, 15)) return bytes.slice(12);
  if (inCidr(bytes, "2002::/16")) return bytes.slice(2, 6);
  if (inCidr(bytes, "2001::/32")) return bytes.slice(12).map((b) => b ^ 0xff);
  return null;
}
