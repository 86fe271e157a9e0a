import type { ParseArgsConfig } from "node:util";
import { AriadneError } from "../core/errors.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The command line asked for something that cannot be done as given: one line, exit 2, before any store is opened. */
export class UsageError extends AriadneError {
  constructor(message: string) {
    super("USAGE", 400, message);
  }
}

/**
 * `--flag -5` as `--flag=-5`: node's parser takes a value starting with a dash
 * for a forgotten value and refuses it with a paragraph, so a negative number is
 * handed to the flag's own check, which names the flag and the value in one line.
 */
export function joinNegativeValues(argv: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : null;
    const next = argv[i + 1];
    if (name && options[name]?.type === "string" && next !== undefined && /^-\.?\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** node's parse error in one line: its first sentence ("Unknown option '--bogus'"). */
export function firstSentence(error: unknown): string {
  return ((error as Error).message ?? String(error)).split("\n")[0]!.replace(/\. To specify a positional argument.*$/, "").replace(/\.$/, "");
}
