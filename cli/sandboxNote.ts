import type { Scenario } from "../scenarios/index.ts";
import { type Prerequisite, sandboxProblems } from "../setup/prerequisites.ts";

/**
 * The line on stderr at the start of a scenario run that computes in the
 * sandbox when the sandbox cannot run here: what will not be collected, what
 * is missing, and the fix. Null when the scenario needs no sandbox or it runs.
 */
export function sandboxNote(scenario: Pick<Scenario, "name" | "needsSandbox"> | undefined, problems: () => Prerequisite[] = sandboxProblems): string | null {
  if (!scenario?.needsSandbox) return null;
  const missing = problems();
  if (missing.length === 0) return null;
  const packages = missing.flatMap((p) => (p.aptPackage ? [p.aptPackage] : []));
  const fixes = [...(packages.length ? [`sudo apt-get install -y ${packages.join(" ")}`] : []), ...missing.filter((p) => !p.aptPackage).map((p) => p.install)];
  return (
    `note: compute's sandbox cannot run here (${missing.map((p) => `${p.name}: ${p.detail}`).join("; ")}), ` +
    `so the ${scenario.name} scenario's ${scenario.needsSandbox} will not be collected; ` +
    `npm run setup installs what is missing (${fixes.join("; ")}); ariadne doctor lists it`
  );
}
