/**
 * `npm run setup` (after `npm ci`): installs the system packages Ariadne needs
 * when they are missing (apt-get as root on Debian and Ubuntu; otherwise the
 * exact command to run, and exit 1), then says what it found. `--dry-run`
 * prints what it would run and runs nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { osFamily, planSystemInstall } from "./planSystemInstall.ts";
import { type Prerequisite, SYSTEM_PATHS, denoPrerequisite, nodePrerequisite, systemPrerequisites } from "./prerequisites.ts";

const dryRun = process.argv.includes("--dry-run");
const say = (line: string) => console.log(`setup: ${line}`);
const fail = (lines: string[]): never => {
  for (const line of lines) console.error(`setup: ${line}`);
  process.exit(1);
};

const osRelease = existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "";
const { ubuntu } = osFamily(osRelease);
const own = [nodePrerequisite(), denoPrerequisite()].filter((p) => !p.found);
if (own.length) fail(own.map((p) => `${p.name}: ${p.detail}; ${p.install}`));

const missingOf = (): Prerequisite[] => systemPrerequisites(SYSTEM_PATHS, ubuntu).filter((p) => !p.found);
const plan = planSystemInstall(missingOf(), { uid: process.getuid?.() ?? -1, osRelease });
switch (plan.kind) {
  case "ready":
    say("system packages: all found (bubblewrap can sandbox; Python with numpy, pandas, statsmodels; Chromium)");
    break;
  case "tell":
  case "unsupported":
    fail(plan.lines);
    break;
  case "install":
    say(`installing what is missing: ${plan.packages.join(", ")}`);
    for (const command of plan.commands) {
      say(`${dryRun ? "would run" : "running"}: ${command.join(" ")}`);
      if (dryRun) continue;
      // env(1) adds DEBIAN_FRONTEND to the inherited environment (apt-get asks no questions); the
      // environment itself is read only in cli/config.ts.
      const ran = spawnSync("env", ["DEBIAN_FRONTEND=noninteractive", ...command], { stdio: "inherit" });
      if (ran.status !== 0) fail([`${command.join(" ")} failed (${ran.error?.message ?? `exit ${ran.status}`})`]);
    }
    if (dryRun) break;
    {
      const still = missingOf();
      if (still.length) fail(["still missing after installing:", ...still.map((p) => `  ${p.name}: ${p.detail}; ${p.install}`)]);
    }
    say("system packages installed");
    break;
}
say("done; `npx ariadne doctor` lists every prerequisite (the database too)");
