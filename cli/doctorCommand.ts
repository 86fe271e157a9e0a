import { existsSync, readFileSync } from "node:fs";
import { databasePrerequisite } from "../setup/databasePrerequisite.ts";
import { osFamily } from "../setup/planSystemInstall.ts";
import { type Prerequisite, denoPrerequisite, nodePrerequisite, systemPrerequisites, SYSTEM_PATHS } from "../setup/prerequisites.ts";
import type { Invocation } from "./command.ts";

/** Every prerequisite, as found on this machine, in the order a newcomer meets them. */
export async function checkPrerequisites(store: Invocation["storeOptions"]): Promise<Prerequisite[]> {
  const osRelease = existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "";
  return [nodePrerequisite(), denoPrerequisite(), await databasePrerequisite(store.url, store.dataDir), ...systemPrerequisites(SYSTEM_PATHS, osFamily(osRelease).ubuntu)];
}

/** `ariadne doctor`: what this machine has of what Ariadne needs (cli/commands/machineCommands.ts declares it). */
export async function doctorCommand({ flags, out, storeOptions }: Pick<Invocation, "flags" | "out" | "storeOptions">): Promise<number> {
  const prerequisites = await checkPrerequisites(storeOptions);
  const ok = prerequisites.every((p) => p.found);
  if (flags.bool("json")) {
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
