import type { AriadneConfig } from "./config.ts";
import type { Flag, FlagValues } from "./flags.ts";
import type { LiveTerminal } from "./live/liveTerminal.ts";

/**
 * One command (or subcommand) of `ariadne`, declared once in cli/commands/: its arguments, its flags with
 * their types, defaults and bounds, and its help. cli/main.ts parses and dispatches from these, cli/help.ts
 * prints `--help` from them and docs/reference/cli.md is generated from them (`npm run docs:cli`).
 */
export interface Command {
  /** The word that names it: `run`, or `create` under `keys`. */
  name: string;
  /** Its positional arguments as the usage shows them: `RUN [CLAIM_ID]`. */
  args?: string;
  /** One line in the list of commands. */
  summary: string;
  /** What `--help` says after the usage line: what the command does, its output, its exit codes. */
  description?: string;
  flags?: readonly Flag[];
  /** How many positional arguments it takes, and the one line that says so when the count is wrong (given the count). */
  positionals?: { min: number; max: number; problem: string | ((count: number) => string) };
  /** False for a command that opens no store: it takes no --data-dir. */
  store?: boolean;
  /** What `--help` says after the flags (lanes, metrics). */
  notes?: string;
  /** Performs the command; its module is imported here, when it runs (command start-up time matters). */
  run?: (invocation: Invocation) => Promise<number>;
  /** A command made of subcommands (`keys create`, `keys signing create`): run takes one of them. */
  subcommands?: readonly Command[];
}

/** What a command is run with: its flags parsed and checked, its arguments, and where to write. */
export interface Invocation {
  flags: FlagValues;
  positionals: string[];
  out: (line: string) => void;
  config: AriadneConfig;
  terminal: LiveTerminal | null;
  /** DATABASE_URL, else the embedded store in --data-dir. */
  /** `wait`: how long to wait for an unreachable PostgreSQL (ARIADNE_DATABASE_WAIT_MS; db/openDatabase.ts). */
  storeOptions: { url: string | undefined; dataDir: string | undefined; wait: { ms?: number; atOpenMs?: number } };
  /** The command's own --help, for a command that prints it with an error of its own. */
  help: string;
}
