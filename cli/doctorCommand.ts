import { existsSync, readFileSync } from "node:fs";
import { databasePrerequisite } from "../setup/databasePrerequisite.ts";
import { osFamily } from "../setup/planSystemInstall.ts";
import { type Prerequisite, SUPPORTED_NODE, denoPrerequisite, nodePrerequisite, systemPrerequisites, SYSTEM_PATHS } from "../setup/prerequisites.ts";
import { type AriadneConfig, storeOptionsOf } from "./config.ts";
import { parseCommand } from "./parseCommand.ts";
import { UsageError } from "./usage.ts";

export const DOCTOR_USAGE = `usage: ariadne doctor [--json] [--data-dir DIR]

Lists every prerequisite, found or missing, with what it is for and how to install it:
Node (${SUPPORTED_NODE}), Deno (the npm package deno), the database this command
would use (DATABASE_URL, asked to answer; unset, the embedded store in --data-dir), bubblewrap
and whether it can create compute's sandbox here, Python 3 with numpy, pandas and statsmodels,
and Chromium (the audit page's browser test). npm run setup installs the system packages on
Debian and Ubuntu. Exit 0 when everything is found, 1 otherwise.

options:
  --json             {ok, prerequisites: [{name, found, detail, neededFor, install}]}
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** Every prerequisite, as found on this machine, in the order a newcomer meets them. */
export async function checkPrerequisites(config: AriadneConfig, dataDir: string | undefined): Promise<Prerequisite[]> {
  const osRelease = existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "";
  const store = storeOptionsOf(config, dataDir);
  return [nodePrerequisite(), denoPrerequisite(), await databasePrerequisite(store.url, store.dataDir), ...systemPrerequisites(SYSTEM_PATHS, osFamily(osRelease).ubuntu)];
}

/** `ariadne doctor`: what this machine has of what Ariadne needs. */
export async function doctorCommand(argv: string[], out: (line: string) => void, config: AriadneConfig): Promise<number> {
  const { values, positionals } = parseCommand(argv, { json: { type: "boolean", default: false } }, DOCTOR_USAGE);
  if (values.help) return (out(DOCTOR_USAGE), 0);
  if (positionals.length) throw new UsageError(`doctor takes no arguments, got "${positionals[0]}" (ariadne doctor --help for usage)`);
  const prerequisites = await checkPrerequisites(config, values["data-dir"]);
  const ok = prerequisites.every((p) => p.found);
  if (values.json) {
    out(JSON.stringify({ ok, prerequisites }));
    return ok ? 0 : 1;
  }
  const width = Math.max(...prerequisites.map((p) => p.name.length));
  for (const p of prerequisites) {
    out(`${p.found ? "found  " : "MISSING"}  ${p.name.padEnd(width)}  ${p.detail}`);
    if (!p.found) out(`         ${" ".repeat(width)}  for ${p.neededFor}; ${p.install}`);
  }
  const missing = prerequisites.filter((p) => !p.found).length;
  out(ok ? "everything Ariadne needs is here" : `${missing} missing (npm run setup installs the system packages on Debian and Ubuntu)`);
  return ok ? 0 : 1;
}
