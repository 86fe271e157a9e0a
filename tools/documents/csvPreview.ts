/** Rows of a delimited file; quoted fields may hold the delimiter, doubled quotes and line breaks (RFC 4180). */
export function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => !(r.length === 1 && r[0] === ""));
}

/** Tab when the header has tabs and no commas, semicolon likewise, else comma. */
export function sniffDelimiter(text: string): string {
  const header = text.split(/\r?\n/, 1)[0] ?? "";
  if (header.includes("\t") && !header.includes(",")) return "\t";
  if (header.includes(";") && !header.includes(",")) return ";";
  return ",";
}

export interface CsvPreview {
  rows: number;
  columns: number;
  header: string[];
  /** A markdown table of the header and the first rows, then counts the model can check against. */
  text: string;
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim();

/** A table preview: row and column counts, the header and the first `limit` data rows. */
export function csvPreview(text: string, limit = 50): CsvPreview {
  const delimiter = sniffDelimiter(text);
  const [header = [], ...data] = parseDelimited(text, delimiter);
  const columns = Math.max(header.length, ...data.map((r) => r.length));
  const ragged = data.filter((r) => r.length !== header.length).length;
  const shown = data.slice(0, limit);
  const line = (r: string[]) => `| ${Array.from({ length: columns }, (_, i) => cell(r[i] ?? "")).join(" | ")} |`;
  const lines = [
    `table: ${data.length} rows (header excluded) x ${columns} columns; delimiter ${JSON.stringify(delimiter)}`,
    `columns: ${header.map(cell).join(", ")}`,
    ...(ragged ? [`note: ${ragged} rows do not have ${header.length} fields`] : []),
    shown.length < data.length
      ? `showing the first ${shown.length} of ${data.length} rows; for all of them, pass this file to compute as an input`
      : `showing all ${data.length} rows`,
    "",
    line(header),
    `|${" --- |".repeat(columns)}`,
    ...shown.map(line),
  ];
  return { rows: data.length, columns, header, text: lines.join("\n") };
}
