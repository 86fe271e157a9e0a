/**
 * One spelling per page, so the same page asked for under two URLs is fetched
 * once and a link seen under one spelling makes the other reachable: scheme and
 * host lower case, default port dropped, fragment dropped, tracking parameters
 * dropped (utm_*, gclid, fbclid, ...), the rest of the query sorted, and an
 * empty path written "/" while a trailing slash on a longer path is dropped.
 * Returns null for what is not an absolute http(s) URL.
 */
export function normalizeUrl(raw: string): string | null {
  const url = cleanUrl(raw);
  if (!url) return null;
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) url.pathname = url.pathname.replace(/\/+$/, "") || "/";
  return url.href;
}

/**
 * The URL web_fetch requests for one the model asked for: what normalizeUrl
 * drops is dropped here too (fragment, credentials, tracking parameters; the
 * query sorted), and only the path keeps its spelling, a trailing slash at most
 * (a site may need it). Reachability is decided on the normalised URL, so
 * whatever normalising forgives must not reach the server: a seen link
 * respelled with `?utm_source=<a secret>` would pass the check and carry the
 * secret out. Null for what is not an absolute http(s) URL.
 */
export function requestUrl(raw: string): string | null {
  const url = cleanUrl(raw);
  if (!url) return null;
  url.pathname = url.pathname.replace(/\/+$/, "/");
  return url.href;
}

/** Parsed, http(s) only, with fragment, credentials and tracking parameters gone and the query sorted. */
function cleanUrl(raw: string): URL | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // URL already lower-cases scheme and host and drops a default port; credentials never belong in a source's URL.
  url.hash = "";
  url.username = "";
  url.password = "";
  const kept = [...url.searchParams].filter(([name]) => !isTracking(name));
  kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = new URLSearchParams(kept).toString();
  if (url.hostname.endsWith(".")) url.hostname = url.hostname.slice(0, -1);
  return url;
}

const TRACKING = new Set([
  "gclid",
  "gclsrc",
  "dclid",
  "gbraid",
  "wbraid",
  "fbclid",
  "msclkid",
  "twclid",
  "ttclid",
  "li_fat_id",
  "igshid",
  "yclid",
  "mc_cid",
  "mc_eid",
  "_ga",
  "_gl",
  "_hsenc",
  "_hsmi",
  "mkt_tok",
  "oly_anon_id",
  "oly_enc_id",
  "vero_id",
  "ref_src",
]);

function isTracking(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith("utm_") || TRACKING.has(n);
}
