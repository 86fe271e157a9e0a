/** A link a page shows: where it goes (absolute, no fragment) and its text. */
export interface PageLink {
  url: string;
  text: string;
}

/** At most this many links a page: enough to follow a site's navigation, bounded for the log. */
export const MAX_LINKS = 200;

/** The page's http(s) links, resolved against its <base> or its own URL, once each, in page order. */
export function pageLinks(document: Document, pageUrl: string): PageLink[] {
  const base = baseOf(document, pageUrl);
  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const a of document.querySelectorAll("a[href]")) {
    if (links.length >= MAX_LINKS) break;
    let url: URL;
    try {
      url = new URL(a.getAttribute("href")!.trim(), base);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    url.hash = "";
    if (seen.has(url.href)) continue;
    seen.add(url.href);
    links.push({ url: url.href, text: (a.textContent ?? "").replace(/\s+/g, " ").trim().slice(0, 100) });
  }
  return links;
}

function baseOf(document: Document, pageUrl: string): string {
  const href = document.querySelector("base[href]")?.getAttribute("href");
  if (!href) return pageUrl;
  try {
    return new URL(href, pageUrl).href;
  } catch {
    return pageUrl;
  }
}
