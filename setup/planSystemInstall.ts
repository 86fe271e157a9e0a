import type { Prerequisite } from "./prerequisites.ts";

/** The machine as setup sees it: who runs it, and /etc/os-release's text ("" when there is none). */
export interface HostFacts {
  uid: number;
  osRelease: string;
}

/** What npm run setup does about the system prerequisites. */
export type SetupPlan =
  | { kind: "ready" }
  /** Root on Debian or Ubuntu: run these, in order (apt-get non-interactive). */
  | { kind: "install"; commands: string[][]; packages: string[] }
  /** Not root, or something no package fixes: the user runs this (or reads these lines), and setup exits 1. */
  | { kind: "tell"; lines: string[] }
  | { kind: "unsupported"; lines: string[] };

/** The os-release fields setup reads: ID, ID_LIKE, PRETTY_NAME. */
export function osFamily(osRelease: string): { debian: boolean; ubuntu: boolean; name: string } {
  const field = (key: string) => new RegExp(`^${key}="?([^"\\n]*)"?$`, "m").exec(osRelease)?.[1] ?? "";
  const ids = `${field("ID")} ${field("ID_LIKE")}`.split(/\s+/);
  const ubuntu = ids.includes("ubuntu");
  return { debian: ubuntu || ids.includes("debian"), ubuntu, name: field("PRETTY_NAME") || field("ID") || "this system" };
}

/**
 * Decides, without doing anything, how the missing system prerequisites get
 * installed: apt-get as root on Debian and Ubuntu (Chromium on Ubuntu from
 * playwright-core, its chromium package being a snap); the exact commands to
 * run otherwise; on other systems what to install, by name.
 */
export function planSystemInstall(missing: readonly Prerequisite[], host: HostFacts): SetupPlan {
  if (missing.length === 0) return { kind: "ready" };
  const os = osFamily(host.osRelease);
  const wanted = missing.map((p) => `  ${p.name}: ${p.detail} (for ${p.neededFor})`);
  if (!os.debian) {
    return {
      kind: "unsupported",
      lines: [
        `${os.name} is not Debian or Ubuntu, so setup installs nothing itself; install these, then run it again (ariadne doctor checks):`,
        ...wanted,
        "  (bubblewrap at /usr/bin/bwrap; Python 3 at /usr/bin/python3 with numpy, pandas and statsmodels; Chromium at /usr/bin/chromium)",
      ],
    };
  }
  // A refusal no package fixes (bubblewrap installed but no user namespaces) is said as such.
  const unfixable = missing.filter((p) => !p.aptPackage && !(os.ubuntu && p.name === "Chromium"));
  const packages = [...new Set(missing.flatMap((p) => (p.aptPackage ? [p.aptPackage] : [])))];
  const playwrightChromium = os.ubuntu && missing.some((p) => p.name === "Chromium");
  if (host.uid === 0 && unfixable.length === 0) {
    const commands: string[][] = [];
    if (packages.length) commands.push(["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", ...packages]);
    if (playwrightChromium) commands.push(["npx", "--no-install", "playwright-core", "install", "--with-deps", "chromium"]);
    return { kind: "install", commands, packages: playwrightChromium ? [...packages, "chromium (playwright-core)"] : packages };
  }
  const steps = [
    ...(packages.length ? [`sudo apt-get update && sudo apt-get install -y ${packages.join(" ")}`] : []),
    ...(playwrightChromium ? ["sudo npx playwright-core install-deps chromium && npx playwright-core install chromium"] : []),
  ];
  return {
    kind: "tell",
    lines: [
      "missing:",
      ...wanted,
      ...(steps.length ? ["install them (setup runs apt-get only as root), then run npm run setup again:", ...steps.map((s) => `  ${s}`)] : []),
      ...unfixable.map((p) => `${p.name}: ${p.install}`),
    ],
  };
}
