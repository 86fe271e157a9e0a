import { parseArgs } from "node:util";
import { isAriadneError } from "../core/errors.ts";
import { openStore } from "../db/index.ts";
import { runResearch } from "./runResearch.ts";
import { cancelCommand } from "./cancelCommand.ts";
import { resumeCommand } from "./resumeCommand.ts";
import { statusCommand } from "./statusCommand.ts";
import { submitCommand } from "./submitCommand.ts";
import { workerCommand } from "./workerCommand.ts";

/** Commands that parse their own arguments (each has --help). */
const RUN_LIFECYCLE: Record<string, (argv: string[], out: (line: string) => void) => Promise<number>> = {
  submit: submitCommand,
  worker: workerCommand,
  resume: resumeCommand,
  status: statusCommand,
  cancel: cancelCommand,
};

const USAGE = `usage: ariadne <command> [options]

commands:
  migrate            apply pending migrations to DATABASE_URL, or to the embedded store
  run [QUESTION]     run a research run (offline scripted scenario without ANTHROPIC_API_KEY)
  submit [QUESTION]  record a run for workers and print its id
  worker             execute submitted runs; take over runs whose owner died
  resume RUN         finish a crashed or interrupted run in this process
  status RUN         a run's state and executor tree (--json for scripts)
  cancel RUN         cancel a run, or one executor with --executor ID

options:
  --data-dir DIR     embedded store directory when DATABASE_URL is unset (default .ariadne/data)
  --json             print a machine-readable result
  -h, --help         show this help

environment:
  DATABASE_URL       postgres://user@host:port/db; unset means the embedded PGlite store
  ARIADNE_DEBUG=1    print stack traces on errors`;

/** The CLI's entry: returns the exit code instead of exiting, so it can be tested in-process. */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const lifecycle = RUN_LIFECYCLE[argv[0]];
  if (lifecycle) return lifecycle(argv.slice(1), out).catch(reportError);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        "data-dir": { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (e) {
    console.error(`ariadne: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help || !command) {
    out(USAGE);
    return command || parsed.values.help ? 0 : 2;
  }
  const storeOptions = { url: process.env.DATABASE_URL || undefined, dataDir: parsed.values["data-dir"] };
  try {
    switch (command) {
      case "migrate": {
        const { database, close } = await openStore(storeOptions);
        out(`migrations applied: ${database.location}`);
        await close();
        return 0;
      }
      case "run":
        return await runResearch({ ...storeOptions, question: rest.join(" ") || undefined, json: parsed.values.json, out });
      default:
        console.error(`ariadne: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (e) {
    return reportError(e);
  }
}

/** One clear line by default; the stack only when asked for. */
function reportError(e: unknown): number {
  if (process.env.ARIADNE_DEBUG) console.error(e);
  else console.error(`ariadne: ${isAriadneError(e) ? e.message : (e as Error)?.message ?? String(e)}`);
  return 1;
}
