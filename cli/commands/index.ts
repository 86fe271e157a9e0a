import type { Command } from "../command.ts";
import { audit, check, report, show, transcript } from "./readCommands.ts";
import { cancel, resume, run, status, submit, worker } from "./runCommands.ts";
import { evaluate, exportRun, migrate, serve, verify } from "./storeCommands.ts";
import { keys, tools } from "./groupCommands.ts";
import { doctor } from "./machineCommands.ts";

/**
 * Every command of `ariadne`, in the order the help lists them. A new command is one entry here (and its
 * definition beside it): the parser, `--help`, the list of commands and docs/reference/cli.md follow.
 */
export const COMMANDS: readonly Command[] = [
  migrate,
  run,
  show,
  transcript,
  verify,
  exportRun,
  audit,
  report,
  check,
  submit,
  worker,
  resume,
  status,
  cancel,
  serve,
  keys,
  tools,
  evaluate,
  doctor,
];
