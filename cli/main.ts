import { isAriadneError } from "../core/errors.ts";
import { armCrashPoint } from "../core/crashPoint.ts";
import { COMMANDS } from "./commands/index.ts";
import { type AriadneConfig, NUMERIC_ENV, readConfig } from "./config.ts";
import { boundsText, parseFlags } from "./flags.ts";
import { type CommandPath, commandHelp, flagsOf, globalHelp, synopsis } from "./help.ts";
import { type LiveTerminal, liveTerminalOf } from "./live/liveTerminal.ts";
import { UsageError } from "./usage.ts";
import { terminalText } from "../core/sanitizeText.ts";
import { errorLine } from "./errorLine.ts";
export { forcedExitCode } from "./exitNow.ts";

/** The variables `ariadne --help` names (docs/reference/environment.md lists every one). */
const HELP_ENVIRONMENT = [
  { name: "DATABASE_URL", help: "postgres://user@host:port/db; unset means the embedded PGlite store" },
  { name: "ANTHROPIC_API_KEY", help: "the real model; a question needs it" },
  { name: "ARIADNE_DEBUG=1", help: "print stack traces on errors" },
  { name: "ARIADNE_CORPUS_DIR", help: "the corpus offline scenarios, eval cases and the baseline researcher read (default the repository's corpus/)" },
  { name: "ARIADNE_MODEL", help: "baseline: questions are answered by the scripted baseline researcher (as run --model baseline; the flag wins)" },
  ...NUMERIC_ENV.map((v) => ({ name: v.name, help: `${v.help} (${boundsText(v)})` })),
];

export const USAGE = (): string => globalHelp(HELP_ENVIRONMENT);

/**
 * The CLI's entry: returns the exit code instead of exiting, so it can be tested in-process. The command is
 * found in the table (cli/commands/), its flags parsed and checked from their declarations, and its module
 * loaded only then. `config`: read from the environment when not given (a variable out of its bounds is bad
 * usage). `terminal`: where live views draw (run, status --follow); by default stdout when it is a terminal
 * and the output goes there, else none (plain lines).
 */
export async function main(argv: string[], out: (line: string) => void = console.log, config?: AriadneConfig, terminal?: LiveTerminal | null): Promise<number> {
  let debug = config?.debug ?? false;
  try {
    const found = findCommand(argv, out);
    if (typeof found === "number") return found;
    const { path, rest } = found;
    const line = synopsis(path);
    const { values, positionals } = parseFlags(flagsOf(path.command), rest, path.words.join(" "), line);
    if (values.bool("help")) {
      out(commandHelp(path));
      return 0;
    }
    const count = path.command.positionals;
    if (count && (positionals.length < count.min || positionals.length > count.max)) {
      throw new UsageError(typeof count.problem === "string" ? count.problem : count.problem(positionals.length));
    }
    config ??= readConfig();
    debug = config.debug;
    armCrashPoint(config.crashAt);
    return await path.command.run!({
      flags: values,
      positionals,
      config,
      terminal: terminal !== undefined ? terminal : out === console.log ? liveTerminalOf(process.stdout, config) : null,
      // Every line printed may quote recorded text (a question over the API, a page, a model's reply): control sequences are shown, never acted on.
      out: (printed: string) => out(terminalText(printed)),
      storeOptions: { url: config.databaseUrl, dataDir: path.command.store === false ? undefined : values.string("data-dir"), wait: { ms: config.databaseWaitMs } },
      help: commandHelp(path),
    });
  } catch (e) {
    return report(e, debug);
  }
}

/**
 * The command argv names, walking subcommands (`keys signing create`), and the arguments left for it; or the
 * exit code when argv names none (the help asked for, or printed after a line saying what is wrong).
 */
function findCommand(argv: string[], out: (line: string) => void): { path: CommandPath; rest: string[] } | number {
  const [first] = argv;
  if (first === "--help" || first === "-h") return (out(USAGE()), 0);
  if (first === undefined) return (out(USAGE()), 2);
  const top = COMMANDS.find((c) => c.name === first);
  if (!top) {
    console.error(`ariadne: unknown command "${first}"\n\n${USAGE()}`);
    return 2;
  }
  const path: CommandPath = { words: [top.name], command: top };
  let i = 1;
  while (path.command.subcommands) {
    const word = argv[i];
    const next = path.command.subcommands.find((c) => c.name === word);
    if (!next) {
      if (word === "--help" || word === "-h") return (out(commandHelp(path)), 0);
      const names = path.command.subcommands.map((c) => `"${c.name}"`);
      const choices = names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
      throw new UsageError(`${path.words.join(" ")} needs ${choices} (got ${word === undefined ? "nothing" : `"${word}"`}); ${synopsis(path)}`);
    }
    path.words = [...path.words, next.name];
    path.command = next;
    i++;
  }
  return { path, rest: argv.slice(i) };
}

/** Errors that mean the command was asked for something it cannot do as given: exit 2. */
const USAGE_ERRORS = new Set(["USAGE", "VALIDATION", "RUN_REQUEST", "MODEL_NOT_CONFIGURED"]);

/** One clear line by default; the stack only when asked for. Bad usage exits 2, anything else 1. */
function report(e: unknown, debug: boolean): number {
  if (debug) console.error(e);
  else errorLine(`ariadne: ${isAriadneError(e) ? e.message : (e as Error)?.message ?? String(e)}`);
  return isAriadneError(e) && USAGE_ERRORS.has(e.code) ? 2 : 1;
}
