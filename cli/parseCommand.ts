import type { ParseArgsConfig } from "node:util";
import { parseUsage } from "./usage.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses one command's arguments, with --help and --data-dir for every command;
 * bad input is a UsageError of one line naming the problem (exit 2).
 */
export function parseCommand<O extends Options>(argv: string[], options: O, usage: string) {
  const command = /^usage: ariadne (\S+)/.exec(usage)?.[1] ?? null;
  return parseUsage(
    argv,
    { ...options, "data-dir": { type: "string" }, help: { type: "boolean", short: "h", default: false } } as O & {
      "data-dir": { type: "string" };
      help: { type: "boolean"; short: "h"; default: false };
    },
    command,
  );
}
