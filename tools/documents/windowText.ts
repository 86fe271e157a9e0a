import { ToolError } from "../toolErrors.ts";

/** The most a single read shows the model; the rest is paged with `offset`. */
export const MAX_OUTPUT_CHARS = 40_000;

export interface TextWindow {
  text: string;
  offset: number;
  total_chars: number;
  truncated: boolean;
  /** Where the next call should start; absent when this window reaches the end. */
  next_offset?: number;
}

/** A window of at most `max` characters from `offset`, never splitting a surrogate pair. */
export function windowText(full: string, offset = 0, max = MAX_OUTPUT_CHARS): TextWindow {
  if (offset > 0 && offset >= full.length) {
    throw new ToolError(`offset ${offset} is past the end: the text has ${full.length} characters. Use an offset below ${full.length}, or 0 to start again.`);
  }
  let end = Math.min(full.length, offset + max);
  const code = full.charCodeAt(end - 1);
  if (end < full.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
  const truncated = end < full.length;
  return { text: full.slice(offset, end), offset, total_chars: full.length, truncated, ...(truncated ? { next_offset: end } : {}) };
}

/** One line the model can act on: what part it sees and how to get the rest. */
export function describeWindow(w: TextWindow, tool: string): string {
  const shown = `chars ${w.offset}-${w.offset + w.text.length} of total_chars ${w.total_chars}`;
  return w.truncated
    ? `${shown}; truncated: true; next_offset: ${w.next_offset} (call ${tool} again with offset ${w.next_offset} for the rest)`
    : `${shown}; truncated: false`;
}
