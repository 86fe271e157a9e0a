import { parseArgs, type ParseArgsConfig } from "node:util";
import { ValidationError } from "../core/errors.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses one command's arguments, with --help and --data-dir for every command; bad input names the problem. */
export function parseCommand<O extends Options>(argv: string[], options: O, usage: string) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...options, "data-dir": { type: "string" }, help: { type: "boolean", short: "h", default: false } } as O & {
        "data-dir": { type: "string" };
        help: { type: "boolean"; short: "h"; default: false };
      },
    });
  } catch (e) {
    throw new ValidationError(`${(e as Error).message}\n\n${usage}`, []);
  }
}
