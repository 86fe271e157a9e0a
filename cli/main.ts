import { parseArgs } from "node:util";
import { isAriadneError } from "../core/errors.ts";
import { openStore } from "../db/index.ts";
import { keys } from "./keys.ts";
import { runResearch } from "./runResearch.ts";
import { serve } from "./serve.ts";

const USAGE = `usage: ariadne <command> [options]

commands:
  migrate            apply pending migrations to DATABASE_URL, or to the embedded store
  run [QUESTION]     run a research run (offline scripted scenario without ANTHROPIC_API_KEY)
  serve              the HTTP API [--port 8787] [--host 127.0.0.1] [--no-workers] [--no-auth]
  keys create        an API key: --role client|auditor|admin --tenant T (printed once)
  keys revoke ID     revoke an API key

options:
  --data-dir DIR     embedded store directory when DATABASE_URL is unset (default .ariadne/data)
  --json             print a machine-readable result
  -h, --help         show this help

environment:
  DATABASE_URL       postgres://user@host:port/db; unset means the embedded PGlite store
  ARIADNE_DEBUG=1    print stack traces on errors`;

/** The CLI's entry: returns the exit code instead of exiting, so it can be tested in-process. */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        "data-dir": { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
        port: { type: "string", default: "8787" },
        host: { type: "string", default: "127.0.0.1" },
        "no-workers": { type: "boolean", default: false },
        "no-auth": { type: "boolean", default: false },
        role: { type: "string" },
        tenant: { type: "string" },
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
      case "serve": {
        const port = Number(parsed.values.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          console.error(`ariadne: --port must be a port number (got "${parsed.values.port}")`);
          return 2;
        }
        const flags = { port, host: parsed.values.host!, workers: !parsed.values["no-workers"], auth: !parsed.values["no-auth"] };
        return await serve({ ...storeOptions, ...flags, out });
      }
      case "keys":
        return await keys(rest, { ...storeOptions, role: parsed.values.role, tenant: parsed.values.tenant, out });
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
