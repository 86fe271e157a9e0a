import { ToolError } from "../toolErrors.ts";

/** "3", "3-5", "1,4,7-9" as sorted page numbers, each checked against the page count. */
export function parsePageRange(spec: string, totalPages: number): number[] {
  const pages = new Set<number>();
  for (const part of spec.split(",").map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!m) throw new ToolError(`pages "${spec}" is not a page range; write e.g. "3", "3-5" or "1,4,7-9".`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1 || to < from) throw new ToolError(`pages "${part}" is not a range of pages counted from 1 (e.g. "3-5").`);
    if (to > totalPages) throw new ToolError(`pages "${part}" goes past the last page: the document has ${totalPages} pages.`);
    for (let p = from; p <= to; p++) pages.add(p);
  }
  if (pages.size === 0) throw new ToolError(`pages "${spec}" names no page; write e.g. "3-5", or omit pages to read the whole document.`);
  return [...pages].sort((a, b) => a - b);
}

/** [1,2,3,5,7,8] as "1-3, 5, 7-8": how coverage is reported. */
export function formatPageList(pages: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    runs.push(i === j ? `${pages[i]}` : `${pages[i]}-${pages[j]}`);
    i = j + 1;
  }
  return runs.join(", ");
}
