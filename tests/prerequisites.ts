/**
 * `npm test`'s first step (npm runs it as pretest): the suites need PostgreSQL
 * on 127.0.0.1:5432 (ARIADNE_TEST_ADMIN_URL), which is the user's to run, and
 * the system packages npm run setup installs. Missing, it says which and how,
 * and stops before half an hour of failures says it less clearly.
 */
import { existsSync, readFileSync } from "node:fs";
import { databasePrerequisite } from "../setup/databasePrerequisite.ts";
import { osFamily } from "../setup/planSystemInstall.ts";
import { SYSTEM_PATHS, denoPrerequisite, nodePrerequisite, systemPrerequisites } from "../setup/prerequisites.ts";
import { ADMIN_URL } from "./support/testDatabase.ts";

const ubuntu = osFamily(existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "").ubuntu;
const database = await databasePrerequisite(ADMIN_URL);
const missing = [nodePrerequisite(), denoPrerequisite(), ...systemPrerequisites(SYSTEM_PATHS, ubuntu)].filter((p) => !p.found);
if (!database.found) {
  console.error(`npm test: the tests need PostgreSQL at ${ADMIN_URL.replace(/:[^:@/]*@/, ":***@")} (trust auth, user postgres; ARIADNE_TEST_ADMIN_URL names another), and it does not answer:`);
  console.error(`  ${database.detail}`);
  console.error("  start it (Debian/Ubuntu: sudo pg_ctlcluster <version> main start, e.g. 15 or 16), then run npm test again");
}
if (missing.length) {
  console.error("npm test: missing, run npm run setup first (it installs them on Debian and Ubuntu):");
  for (const p of missing) console.error(`  ${p.name}: ${p.detail}; ${p.install}`);
}
if (!database.found || missing.length) process.exit(1);
console.log("npm test: prerequisites found (PostgreSQL answers; sandbox, Python packages, Chromium, Deno)");
