import type { AriadneConfig } from "../config.ts";
import type { TerminalStream } from "./terminalWriter.ts";

/** Where a live view may draw, and whether in colour. */
export interface LiveTerminal {
  stream: TerminalStream;
  color: boolean;
}

/**
 * The stream as a live terminal when it is one that can move its cursor (a TTY,
 * TERM not dumb); null otherwise, and the command prints plain lines as before.
 * Colour unless NO_COLOR is set (https://no-color.org).
 */
export function liveTerminalOf(stream: TerminalStream & { isTTY?: boolean }, config: AriadneConfig): LiveTerminal | null {
  return stream.isTTY && !config.terminal.dumb ? { stream, color: !config.terminal.noColor } : null;
}
