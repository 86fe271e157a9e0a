import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { COMMANDS } from "../../cli/commands/index.ts";
import type { Command } from "../../cli/command.ts";
import { cliReference } from "../../cli/reference.ts";

const PAGE = new URL("../../docs/reference/cli.md", import.meta.url);

test("docs/reference/cli.md is what the command table generates (npm run docs:cli)", () => {
  const page = readFileSync(PAGE, "utf8");
  // Compared whole; on a difference, name the first line that differs.
  if (page !== cliReference()) {
    const want = cliReference().split("\n");
    const have = page.split("\n");
    const i = want.findIndex((line, n) => line !== have[n]);
    assert.fail(`docs/reference/cli.md differs from the command table at line ${i + 1}: run npm run docs:cli\n  page:  ${have[i]}\n  table: ${want[i]}`);
  }
});

/** The table with one flag of one command changed, as an edit to cli/commands/ would change it. */
function changed(commandName: string, flagName: string, change: object): Command[] {
  return COMMANDS.map((c) => (c.name !== commandName ? c : { ...c, flags: c.flags!.map((f) => (f.name === flagName ? { ...f, ...change } : f)) }));
}

test("a changed flag (its bound, its default, its help) makes the reference differ, and so would fail the test above", () => {
  const now = cliReference();
  assert.equal(cliReference(COMMANDS), now, "the same table, the same page");
  for (const [command, flag, change] of [
    ["worker", "lease-ms", { max: 3_600_000 }],
    ["serve", "port", { default: 8080 }],
    ["status", "follow", { help: "follow it" }],
  ] as const) {
    assert.notEqual(cliReference(changed(command, flag, change)), now, `${command} --${flag}`);
  }
  const added = COMMANDS.map((c) => (c.name === "show" ? { ...c, flags: [...c.flags!, { name: "tree", type: "boolean" as const, help: "only the tree" }] } : c));
  assert.match(cliReference(added), /`--tree` \| only the tree/);
  assert.doesNotMatch(now, /--tree/);
});
