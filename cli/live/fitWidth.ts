const ESCAPE = /\x1b\[[0-9;]*m/y;

/** Columns a line takes on screen: its characters, ANSI colour codes not counted. */
export function visibleWidth(line: string): number {
  return [...line.replace(/\x1b\[[0-9;]*m/g, "")].length;
}

/**
 * A line cut to `width` columns, ending in "…" when cut. Colour codes are kept
 * whole and count for nothing; a cut line ends with a reset so no colour leaks
 * into the next. Every character counts as one column (wide CJK ones would
 * count two on screen; the view's names and states are not).
 */
export function fitWidth(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  let out = "";
  let shown = 0;
  let colored = false;
  for (let i = 0; i < line.length; ) {
    ESCAPE.lastIndex = i;
    const code = ESCAPE.exec(line);
    if (code) {
      out += code[0];
      colored = true;
      i += code[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i)!);
    if (shown === width - 1) break;
    out += char;
    shown++;
    i += char.length;
  }
  return `${out}…${colored ? "\x1b[0m" : ""}`;
}
