/**
 * The documentation's links, checked as GitHub renders them: every relative link names a file that exists,
 * and every `#anchor` one of the headings of the page it points to (GitHub's slugs: the heading's text,
 * lower-cased, punctuation dropped, spaces to hyphens, a repeated slug numbered -1, -2, …).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** README.md, CHANGELOG.md and every .md file under docs/, relative to root. */
export function docFiles(root: string): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? under(join(dir, d.name)) : d.name.endsWith(".md") ? [join(dir, d.name)] : [],
    );
  return ["README.md", "CHANGELOG.md"].filter((f) => existsSync(join(root, f))).concat(under("docs")).sort();
}

/** Markdown without its fenced code blocks and inline code spans, which hold no links. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** GitHub's anchor for a heading's text (github-slugger), before numbering. */
export function slugOf(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link shows its text
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** Every anchor a page offers, numbered as GitHub numbers repeats. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slugOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** The relative links of a page (web and mail links are not followed). */
export function linksOf(file: string, text: string): Link[] {
  const links: Link[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, "");
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

/** One line per broken link: `file:line: target: why`. */
export function brokenLinks(root: string, files = docFiles(root)): string[] {
  const problems: string[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (path: string) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, "utf8")));
    return anchorCache.get(path)!;
  };
  for (const file of files) {
    for (const link of linksOf(file, readFileSync(join(root, file), "utf8"))) {
      const [pathPart, anchor] = link.target.split("#", 2) as [string, string | undefined];
      const target = pathPart === "" ? join(root, file) : resolve(dirname(join(root, file)), decodeURI(pathPart));
      const where = `${file}:${link.line}: ${link.target}`;
      if (!existsSync(target)) {
        problems.push(`${where}: ${relative(root, target)} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (statSync(target).isDirectory() || !target.endsWith(".md")) {
        problems.push(`${where}: an anchor into ${relative(root, target)}, which is not a markdown page`);
      } else if (!anchorsIn(target).has(anchor)) {
        problems.push(`${where}: ${relative(root, target)} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

/** The docs pages not reachable from docs/README.md by following relative links between pages. */
export function unreachablePages(root: string, files = docFiles(root)): string[] {
  const pages = new Set(files.filter((f) => f.startsWith("docs/")));
  const seen = new Set<string>(["docs/README.md"]);
  const queue = ["docs/README.md"];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (!existsSync(join(root, file))) continue;
    for (const link of linksOf(file, readFileSync(join(root, file), "utf8"))) {
      const pathPart = link.target.split("#", 1)[0]!;
      if (pathPart === "") continue;
      const to = relative(root, resolve(dirname(join(root, file)), decodeURI(pathPart)));
      if (to.endsWith(".md") && !seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return [...pages].filter((p) => !seen.has(p));
}
