import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { osFamily, planSystemInstall } from "../../setup/planSystemInstall.ts";
import { type Prerequisite, chromiumPrerequisite, pythonPrerequisites, sandboxPrerequisite, systemPrerequisites } from "../../setup/prerequisites.ts";

const DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n';
const UBUNTU = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\nID_LIKE=debian\n';
const FEDORA = 'PRETTY_NAME="Fedora Linux 41"\nID=fedora\n';

/** The system prerequisites as a machine without any of them reports them (paths that do not exist). */
const nothingInstalled = (ubuntu = false): Prerequisite[] => systemPrerequisites({ bwrap: "/nonexistent/bwrap", python: "/nonexistent/python3", chromium: "/nonexistent/chromium" }, ubuntu);

describe("what npm run setup does about missing system packages", () => {
  test("given everything found, it installs nothing", () => {
    assert.deepEqual(planSystemInstall([], { uid: 1000, osRelease: DEBIAN }), { kind: "ready" });
  });

  test("given nothing installed, as root on Debian: apt-get update, then one install of every package", () => {
    const plan = planSystemInstall(nothingInstalled(), { uid: 0, osRelease: DEBIAN });
    assert.deepEqual(plan, {
      kind: "install",
      packages: ["bubblewrap", "python3", "python3-numpy", "python3-pandas", "python3-statsmodels", "chromium"],
      commands: [
        ["apt-get", "update", "-qq"],
        ["apt-get", "install", "-y", "-qq", "bubblewrap", "python3", "python3-numpy", "python3-pandas", "python3-statsmodels", "chromium"],
      ],
    });
  });

  test("given one package missing, as a user: the exact sudo command for that package, and nothing run", () => {
    const statsmodels = nothingInstalled().filter((p) => p.name === "Python statsmodels");
    const plan = planSystemInstall(statsmodels, { uid: 1000, osRelease: DEBIAN });
    assert.equal(plan.kind, "tell");
    assert.ok(plan.kind === "tell" && plan.lines.includes("  sudo apt-get update && sudo apt-get install -y python3-statsmodels"), JSON.stringify(plan));
  });

  test("on Ubuntu, Chromium comes from playwright-core (its chromium package is a snap), the rest from apt", () => {
    const root = planSystemInstall(nothingInstalled(true), { uid: 0, osRelease: UBUNTU });
    assert.equal(root.kind, "install");
    assert.ok(root.kind === "install" && !root.commands[1]!.includes("chromium"));
    assert.deepEqual(root.kind === "install" && root.commands.at(-1), ["npx", "--no-install", "playwright-core", "install", "--with-deps", "chromium"]);
    const user = planSystemInstall(nothingInstalled(true), { uid: 1000, osRelease: UBUNTU });
    assert.ok(user.kind === "tell" && user.lines.some((l) => l.includes("sudo npx playwright-core install-deps chromium && npx playwright-core install chromium")));
  });

  test("on another system, it names what to install and installs nothing", () => {
    const plan = planSystemInstall(nothingInstalled(), { uid: 0, osRelease: FEDORA });
    assert.equal(plan.kind, "unsupported");
    assert.match(plan.kind === "unsupported" ? plan.lines[0]! : "", /^Fedora Linux 41 is not Debian or Ubuntu, so setup installs nothing itself/);
    assert.equal(planSystemInstall(nothingInstalled(), { uid: 0, osRelease: "" }).kind, "unsupported");
  });

  test("bubblewrap installed but refused by the kernel is no package to install: even root is told what to change", () => {
    const refused = sandboxPrerequisite("/bin/false");
    assert.equal(refused.found, false);
    assert.equal(refused.aptPackage, undefined);
    const plan = planSystemInstall([refused], { uid: 0, osRelease: DEBIAN });
    assert.ok(plan.kind === "tell" && plan.lines.some((l) => /^bubblewrap: allow unprivileged user namespaces/.test(l)), JSON.stringify(plan));
  });

  test("os-release: ID and ID_LIKE decide the family", () => {
    assert.deepEqual(osFamily(UBUNTU), { debian: true, ubuntu: true, name: "Ubuntu 24.04.1 LTS" });
    assert.deepEqual(osFamily('ID=linuxmint\nID_LIKE="ubuntu debian"\n'), { debian: true, ubuntu: true, name: "linuxmint" });
    assert.deepEqual(osFamily(DEBIAN), { debian: true, ubuntu: false, name: "Debian GNU/Linux 12 (bookworm)" });
  });
});

describe("the prerequisites as found", () => {
  test("missing ones say where they were looked for and how to install them", () => {
    const bwrap = sandboxPrerequisite("/nonexistent/bwrap");
    assert.deepEqual([bwrap.found, bwrap.detail, bwrap.aptPackage], [false, "not installed at /nonexistent/bwrap", "bubblewrap"]);
    const python = pythonPrerequisites("/nonexistent/python3");
    assert.deepEqual(python.map((p) => [p.name, p.found, p.aptPackage]), [
      ["Python 3", false, "python3"],
      ["Python numpy", false, "python3-numpy"],
      ["Python pandas", false, "python3-pandas"],
      ["Python statsmodels", false, "python3-statsmodels"],
    ]);
    assert.equal(chromiumPrerequisite("/nonexistent/chromium").found, false);
  });

  test("on this machine (the packages installed): bubblewrap creates a sandbox and Python imports the three modules", () => {
    const found = systemPrerequisites().filter((p) => p.name !== "Chromium");
    assert.deepEqual(found.filter((p) => !p.found), [], "npm run setup installs these; the suite needs them");
    assert.match(found[0]!.detail, /creates a sandbox$/);
  });
});
