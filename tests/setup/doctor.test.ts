import { test } from "node:test";
import assert from "node:assert/strict";
import { readConfig } from "../../cli/config.ts";
import { main } from "../../cli/main.ts";
import { sandboxNote } from "../../cli/sandboxNote.ts";
import { sandboxPrerequisite } from "../../setup/prerequisites.ts";
import { closedPort } from "../cli/ariadneProcess.ts";

const doctor = async (args: string[], env: Record<string, string> = {}) => {
  const out: string[] = [];
  const code = await main(["doctor", ...args], (line) => out.push(line), readConfig(env), null);
  return { code, out };
};

test("ariadne doctor --json lists every prerequisite, found or missing, with how to install it; exit 0 when all are found", async () => {
  const { code, out } = await doctor(["--json", "--data-dir", "memory://"]);
  const report = JSON.parse(out.join("\n")) as { ok: boolean; prerequisites: { name: string; found: boolean; detail: string; install: string }[] };
  assert.deepEqual(report.prerequisites.map((p) => p.name), ["Node", "Deno", "database", "bubblewrap", "Python 3", "Python numpy", "Python pandas", "Python statsmodels", "Chromium"]);
  for (const p of report.prerequisites) assert.ok(p.detail && (p.found || p.install), JSON.stringify(p));
  assert.equal(code, report.ok ? 0 : 1);
  assert.match(report.prerequisites[2]!.detail, /^the embedded PGlite store at memory:\/\//);
});

test("a database that does not answer is missing, named with its cause and the fix: exit 1", async () => {
  const port = await closedPort();
  const { code, out } = await doctor([], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/ariadne` });
  assert.equal(code, 1);
  const line = out.findIndex((l) => /^MISSING +database +cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/ariadne: connection refused/.test(l));
  assert.ok(line >= 0, out.join("\n"));
  assert.match(out[line + 1]!, /start PostgreSQL there .*or unset it to use the embedded store/);
  assert.match(out.at(-1)!, /^\d+ missing \(npm run setup installs the system packages on Debian and Ubuntu\)$/);
});

test("doctor says which web search a real question would use, and a search configuration a run would refuse is a problem: exit 1", async () => {
  const anthropic = await doctor(["--json", "--data-dir", "memory://"], { ARIADNE_SEARCH: "anthropic", ANTHROPIC_API_KEY: "sk-test", ARIADNE_ANTHROPIC_SEARCH_MAX_USES: "2" });
  assert.deepEqual(JSON.parse(anthropic.out.join("\n")).search, {
    provider: "anthropic",
    says: "web search: Anthropic's server-side web search (ARIADNE_SEARCH=anthropic; at most 2 searches per model call; billed per search)",
  });
  const refused = await doctor(["--data-dir", "memory://"], { ARIADNE_SEARCH: "anthropic" });
  assert.equal(refused.code, 1);
  assert.ok(
    refused.out.includes("PROBLEM  web search: ARIADNE_SEARCH=anthropic needs ANTHROPIC_API_KEY: Anthropic's web search runs inside the Anthropic model's calls; a run with a real question is refused until it is fixed"),
    refused.out.join("\n"),
  );
});

test("doctor takes no arguments: exit 2 naming the one given", async () => {
  assert.equal((await doctor(["now"])).code, 2);
});

test("ariadne run's start-up note: said only when the scenario computes in the sandbox and it cannot run, naming what and the fix", () => {
  const missing = () => [sandboxPrerequisite("/nonexistent/bwrap")];
  const note = sandboxNote({ name: "pc-measures", needsSandbox: "seven standard-error variants" }, missing);
  assert.equal(
    note,
    "note: compute's sandbox cannot run here (bubblewrap: not installed at /nonexistent/bwrap), so the pc-measures scenario's seven standard-error variants will not be collected; npm run setup installs what is missing (sudo apt-get install -y bubblewrap); ariadne doctor lists it",
  );
  assert.equal(sandboxNote({ name: "morning-briefing" }, missing), null);
  assert.equal(sandboxNote({ name: "pc-measures", needsSandbox: "x" }, () => []), null);
});
