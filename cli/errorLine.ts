import { terminalText } from "../core/sanitizeText.ts";

/**
 * One line to stderr, its control characters shown as escapes (core terminalText):
 * the lines a command writes beside its output (a --json run's progress, a
 * failure's reason, a question) quote recorded text as its stdout does.
 */
export const errorLine = (line: string): void => console.error(terminalText(line));
