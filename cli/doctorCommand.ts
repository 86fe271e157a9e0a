import { existsSync, readFileSync } from "node:fs";
import { databasePrerequisite } from "../setup/databasePrerequisite.ts";
import { osFamily } from "../setup/planSystemInstall.ts";
import { type Prerequisite, denoPrerequisite, nodePrerequisite, systemPrerequisites, SYSTEM_PATHS } from "../setup/prerequisites.ts";
import type { Invocation } from "./command.ts";
import { searchChoice } from "./config.ts";

/** Every prerequisite, as found on this machine, in the order a newcomer meets them. */
export async function checkPrerequisites(store: Invocation["storeOptions"]): Promise<Prerequisite[]> {
  const osRelease = existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "";
  return [nodePrerequisite(), denoPrerequisite(), await databasePrerequisite(store.url, store.dataDir), ...systemPrerequisites(SYSTEM_PATHS, osFamily(osRelease).ubuntu)];
}

/**
 * `ariadne doctor`: what this machine has of what Ariadne needs (cli/commands/machineCommands.ts declares
 * it), and the web search a real question would use: a search configuration a run would refuse counts
 * as a problem.
 */
export async function doctorCommand({ flags, out, storeOptions, config }: Pick<Invocation, "flags" | "out" | "storeOptions" | "config">): Promise<number> {
  const prerequisites = await checkPrerequisites(storeOptions);
  const choice = searchChoice(config);
  const problem = "problem" in choice ? choice.problem : null;
  const ok = prerequisites.every((p) => p.found) && problem === null;
  if (flags.bool("json")) {
    out(JSON.stringify({ ok, prerequisites, search: problem === null ? { provider: choice.provider, says: choice.says } : { provider: null, problem } }));
    return ok ? 0 : 1;
  }
  const width = Math.max(...prerequisites.map((p) => p.name.length));
  for (const p of prerequisites) {
    out(`${p.found ? "found  " : "MISSING"}  ${p.name.padEnd(width)}  ${p.detail}`);
    if (!p.found) out(`         ${" ".repeat(width)}  for ${p.neededFor}; ${p.install}`);
  }
  out(problem === null ? choice.says : `PROBLEM  web search: ${problem}; a run with a real question is refused until it is fixed`);
  const missing = prerequisites.filter((p) => !p.found).length;
  out(ok ? "everything Ariadne needs is here" : missing ? `${missing} missing (npm run setup installs the system packages on Debian and Ubuntu)` : "the web search configuration above is refused");
  return ok ? 0 : 1;
}
