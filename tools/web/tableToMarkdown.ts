/**
 * A data table as a Markdown table, so figures keep their row and column (a
 * fee table read as loose words loses which fee is which). Layout tables (one
 * column, one row, or holding other tables) give null: their text is read as text.
 */
export function tableToMarkdown(table: Element): string | null {
  if (table.querySelector("table")) return null;
  const rows = rowsOf(table)
    .map((tr) => cellsOf(tr).map(cellText))
    .filter((cells) => cells.some((c) => c !== ""));
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (rows.length < 2 || width < 2) return null;
  const padded = rows.map((r) => [...r, ...Array<string>(width - r.length).fill("")]);
  const caption = cellText(table.querySelector("caption"));
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [
    ...(caption ? [`Table: ${caption}`, ""] : []),
    line(padded[0]),
    line(Array<string>(width).fill("---")),
    ...padded.slice(1).map(line),
  ].join("\n");
}

/** The table's own rows (not those of a nested table), in document order. */
function rowsOf(table: Element): Element[] {
  return [...table.querySelectorAll("tr")].filter((tr) => tr.closest("table") === table);
}

/** A row's cells; a cell spanning columns repeats its text so the columns line up. */
function cellsOf(tr: Element): Element[] {
  const cells: Element[] = [];
  for (const child of tr.children) {
    const tag = child.tagName.toLowerCase();
    if (tag !== "td" && tag !== "th") continue;
    const span = Math.min(Math.max(Number(child.getAttribute("colspan")) || 1, 1), 20);
    for (let i = 0; i < span; i++) cells.push(child);
  }
  return cells;
}

/** A cell's text on one line, pipes escaped so they cannot split the cell. */
export function cellText(cell: Element | null): string {
  return (cell?.textContent ?? "").replace(/\s+/g, " ").trim().replace(/\|/g, "\\|");
}
