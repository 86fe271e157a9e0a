import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { findDenoBinary } from "../tools/compute/findDenoBinary.ts";
import { COMPUTE_DEFAULTS } from "../tools/compute/computeOptions.ts";
import { findChromium } from "./findChromium.ts";

/** One thing Ariadne needs on the machine, as found: what it is for, and how to get it when missing. */
export interface Prerequisite {
  name: string;
  found: boolean;
  /** What was found (a version, a path) or why it is missing. */
  detail: string;
  neededFor: string;
  /** How to install or fix it (one line, a command where there is one). */
  install: string;
  /** The Debian/Ubuntu package that provides it, when one does (setup/setup.ts installs these). */
  aptPackage?: string;
}

/** Where the system prerequisites are looked for; tests point them at paths that do not exist. */
export interface SystemPaths {
  bwrap: string;
  python: string;
  /** Chromium's executable, or null to look in the usual places (setup/findChromium.ts). */
  chromium: string | null;
}

export const SYSTEM_PATHS: SystemPaths = { bwrap: COMPUTE_DEFAULTS.bwrapPath, python: COMPUTE_DEFAULTS.pythonPath, chromium: null };

/** The Node versions this project supports and tests, said once (package.json's engines say the same). */
export const SUPPORTED_NODE = "20.20 or later 20.x (past end of life since April 2026, still tested), 22, or 24 (tested)";

/** Node 20 from 20.20 on, or 22 and later. */
export function nodeSupported(version: string): boolean {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  return major! >= 22 || (major === 20 && minor! >= 20);
}

const apt = (pkg: string) => `sudo apt-get install -y ${pkg} (npm run setup does it as root)`;
const SANDBOX_USE = "compute's sandbox: etf-overlap's holdings overlap, pc-measures' variants, the compute tests";

export function nodePrerequisite(version: string = process.versions.node): Prerequisite {
  return {
    name: "Node",
    found: nodeSupported(version),
    detail: `Node ${version}${nodeSupported(version) ? "" : " is not supported"}`,
    neededFor: "everything",
    install: `install Node ${SUPPORTED_NODE} (https://nodejs.org/en/download)`,
  };
}

export function denoPrerequisite(denoPath: string | null = findDenoBinary()): Prerequisite {
  const version = denoPath ? firstLine(spawnSync(denoPath, ["--version"], { encoding: "utf8", timeout: 10_000 }).stdout) : "";
  return {
    name: "Deno",
    found: !!version,
    detail: version ? `${version} (${denoPath})` : denoPath ? `${denoPath} does not run` : "the npm package deno is not installed",
    neededFor: "compute's TypeScript and JavaScript, the Deno test suites",
    install: "npm ci (Deno comes from the npm package deno)",
  };
}

/**
 * bubblewrap, found and able to make the sandbox compute makes (every
 * namespace unshared): installed is not enough where the kernel refuses
 * unprivileged user namespaces.
 */
export function sandboxPrerequisite(bwrap: string = SYSTEM_PATHS.bwrap): Prerequisite {
  const base = { name: "bubblewrap", neededFor: SANDBOX_USE };
  if (!existsSync(bwrap)) return { ...base, found: false, detail: `not installed at ${bwrap}`, install: apt("bubblewrap"), aptPackage: "bubblewrap" };
  const tried = spawnSync(bwrap, ["--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "/bin/true"], { encoding: "utf8", timeout: 10_000 });
  if (tried.status === 0) return { ...base, found: true, detail: `${bwrap} creates a sandbox`, install: apt("bubblewrap"), aptPackage: "bubblewrap" };
  // Installed but refused by the kernel: no package fixes that.
  return {
    ...base,
    found: false,
    detail: `${bwrap} cannot create a sandbox: ${firstLine(tried.stderr) || tried.error?.message || `exit ${tried.status}`}`,
    install: "allow unprivileged user namespaces (e.g. sudo sysctl -w kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0), or run as root",
  };
}

/** The Python modules compute's programs import, each from its Debian package. */
export const PYTHON_MODULES = ["numpy", "pandas", "statsmodels"] as const;

/** Python, then each module compute needs, as one prerequisite each (a module is looked up, not imported). */
export function pythonPrerequisites(python: string = SYSTEM_PATHS.python): Prerequisite[] {
  const neededFor = SANDBOX_USE;
  if (!existsSync(python)) {
    return [
      { name: "Python 3", found: false, detail: `not installed at ${python}`, neededFor, install: apt("python3"), aptPackage: "python3" },
      ...PYTHON_MODULES.map((m) => ({ name: `Python ${m}`, found: false, detail: "no Python", neededFor, install: apt(`python3-${m}`), aptPackage: `python3-${m}` })),
    ];
  }
  const probe = spawnSync(python, ["-c", "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))", ...PYTHON_MODULES], { encoding: "utf8", timeout: 20_000 });
  const missing = probe.status === 0 ? probe.stdout.trim().split(/\s+/).filter(Boolean) : [...PYTHON_MODULES];
  const version = firstLine(spawnSync(python, ["--version"], { encoding: "utf8" }).stdout);
  return [
    { name: "Python 3", found: probe.status === 0, detail: probe.status === 0 ? `${version} (${python})` : `${python} does not run`, neededFor, install: apt("python3"), aptPackage: "python3" },
    ...PYTHON_MODULES.map((m) => ({
      name: `Python ${m}`,
      found: !missing.includes(m),
      detail: missing.includes(m) ? `${python} cannot import ${m}` : `importable by ${python}`,
      neededFor,
      install: apt(`python3-${m}`),
      aptPackage: `python3-${m}`,
    })),
  ];
}

export function chromiumPrerequisite(chromium: string | null = SYSTEM_PATHS.chromium, ubuntu = false): Prerequisite {
  const path = chromium ?? findChromium();
  const found = !!path && existsSync(path);
  return {
    name: "Chromium",
    found,
    detail: found ? path! : `not installed${path ? ` at ${path}` : ""}`,
    neededFor: "the audit page's browser test only",
    install: ubuntu ? "sudo npx playwright-core install --with-deps chromium (npm run setup does it as root)" : apt("chromium"),
    ...(ubuntu ? {} : { aptPackage: "chromium" }),
  };
}

/** The prerequisites the system provides (what npm run setup installs): the sandbox, Python and its modules, Chromium. */
export function systemPrerequisites(paths: SystemPaths = SYSTEM_PATHS, ubuntu = false): Prerequisite[] {
  return [sandboxPrerequisite(paths.bwrap), ...pythonPrerequisites(paths.python), chromiumPrerequisite(paths.chromium, ubuntu)];
}

/** What of the sandbox is missing for compute (bubblewrap, Python, its modules), or [] when it can run. */
export function sandboxProblems(paths: SystemPaths = SYSTEM_PATHS): Prerequisite[] {
  return [sandboxPrerequisite(paths.bwrap), ...pythonPrerequisites(paths.python)].filter((p) => !p.found);
}

const firstLine = (text: string | null | undefined): string => (text ?? "").trim().split("\n")[0]!.trim();
