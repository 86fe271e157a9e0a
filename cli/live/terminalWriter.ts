import { visibleWidth } from "./fitWidth.ts";

/** The part of a TTY stream the writer uses (process.stdout on a terminal). */
export interface TerminalStream {
  write(text: string): unknown;
  columns?: number;
  rows?: number;
  on?(event: "resize", listener: () => void): unknown;
  off?(event: "resize", listener: () => void): unknown;
}

const HIDE_CURSOR = "\x1b[?25l";
const SHOW_CURSOR = "\x1b[?25h";
/** Cursor up n rows to column 0, then erase from there to the end of the screen. */
const eraseUp = (rows: number) => (rows > 0 ? `\r\x1b[${rows}A\x1b[J` : "");

/**
 * Draws a frame of lines below the cursor and redraws it in place: each frame
 * moves the cursor back up over the last one and erases it, in one write (a TTY
 * write is synchronous, so a frame is never half drawn). Lines logged in between
 * go above the frame and stay. The cursor is hidden while frames are drawn and
 * shown again on close, and on process exit (a second Ctrl-C exits at once).
 */
export function terminalWriter(stream: TerminalStream) {
  let drawn: number[] = [];
  let cursorHidden = false;
  // A line drawn at one width takes more rows once the terminal narrows: count the rows it takes now.
  const rowsDrawn = () => {
    const columns = stream.columns || 80;
    return drawn.reduce((rows, width) => rows + Math.max(1, Math.ceil(width / columns)), 0);
  };
  const restore = () => {
    if (cursorHidden) stream.write(SHOW_CURSOR);
    cursorHidden = false;
  };
  process.on("exit", restore);
  return {
    /** Replaces the frame on screen with these lines. */
    draw(lines: string[]) {
      const hide = cursorHidden ? "" : HIDE_CURSOR;
      cursorHidden = true;
      stream.write(hide + eraseUp(rowsDrawn()) + lines.map((l) => `${l}\n`).join(""));
      drawn = lines.map(visibleWidth);
    },
    /** Prints lines above the frame (the frame is erased; the next draw puts it back below them). */
    log(lines: string[]) {
      stream.write(eraseUp(rowsDrawn()) + lines.map((l) => `${l}\n`).join(""));
      drawn = [];
    },
    /** Leaves the last frame on screen as it is and shows the cursor again. */
    close() {
      restore();
      process.off("exit", restore);
    },
  };
}
