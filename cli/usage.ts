import { parseArgs, type ParseArgsConfig } from "node:util";
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

/** node's parse error in one line (its first sentence), with where the usage is. */
export function usageLine(error: unknown, command: string | null): string {
  const first = ((error as Error).message ?? String(error)).split("\n")[0]!.replace(/\. To specify a positional argument.*$/, "");
  return `${first.replace(/\.$/, "")} (ariadne ${command ? `${command} ` : ""}--help for usage)`;
}

/** parseArgs with negative numbers joined to their flag; a parse error is a UsageError of one line. */
export function parseUsage<O extends Options>(argv: string[], options: O, command: string | null) {
  try {
    return parseArgs({ args: joinNegativeValues(argv, options), allowPositionals: true, options });
  } catch (e) {
    throw new UsageError(usageLine(e, command));
  }
}
