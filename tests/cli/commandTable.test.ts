import { test } from "node:test";
import assert from "node:assert/strict";
import { COMMANDS } from "../../cli/commands/index.ts";
import { parseFlags } from "../../cli/flags.ts";
import { allCommands, commandHelp, flagsOf, synopsis } from "../../cli/help.ts";
import { USAGE, main } from "../../cli/main.ts";
import { DEFAULT_LEASE_MS } from "../../runs/host/workerOptionProblem.ts";
import { WORKER_DEFAULTS } from "../../runs/host/worker.ts";

/** `main` in this process, stdout and stderr captured. Nothing here gets as far as opening a store. */
async function inProcess(argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const original = console.error;
  console.error = (...parts: unknown[]) => void err.push(parts.join(" "));
  try {
    return { code: await main([...argv], (line) => out.push(line)), out, err };
  } finally {
    console.error = original;
  }
}

const paths = allCommands();

test("the table names every command the command line has always had", () => {
  const names = paths.map((p) => p.words.join(" "));
  for (const name of ["migrate", "run", "show", "transcript", "verify", "export", "audit", "report", "check", "submit", "worker", "resume", "status", "cancel", "serve", "keys create", "keys revoke", "keys signing create", "tools list", "tools run", "eval"]) {
    assert.ok(names.includes(name), `${name} is in the table`);
  }
  assert.equal(new Set(names).size, names.length, "each once");
});

for (const path of paths) {
  const name = path.words.join(" ");
  test(`ariadne ${name} --help prints its own help, from the definition the parser reads`, async () => {
    const r = await inProcess([...path.words, "--help"]);
    assert.equal(r.code, 0, r.err.join("\n"));
    assert.deepEqual(r.out, [commandHelp(path)]);
    assert.notEqual(r.out[0], USAGE(), "not the global help");
    if (!path.command.subcommands) {
      assert.match(r.out[0]!, new RegExp(`^usage: ariadne ${name}`));
      // Every flag the parser takes is in the help, and the help names no flag the parser refuses.
      const parsed = flagsOf(path.command).map((f) => `--${f.name}`);
      const shown = new Set(r.out[0]!.match(/(?<![\w-])--[a-z][a-z-]*/g));
      for (const flag of parsed) assert.ok(shown.has(flag), `${flag} is in the help of ${name}`);
      const ownHelp = r.out[0]!.split("\n\noptions:")[1] ?? "";
      for (const flag of ownHelp.match(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm) ?? []) assert.ok(parsed.includes(flag.trim().replace(/^-\w, /, "")), `${flag} in the help is parsed`);
    }
  });
  if (path.command.subcommands) continue;
  test(`ariadne ${name} with an unknown flag: exit 2, one line with the command's usage`, async () => {
    const r = await inProcess([...path.words, "--no-such-flag"]);
    assert.equal(r.code, 2);
    assert.equal(r.err.length, 1, r.err.join("\n"));
    assert.ok(r.err[0]!.startsWith("ariadne: Unknown option '--no-such-flag'; "), r.err[0]);
    assert.ok(r.err[0]!.includes(synopsis(path)), r.err[0]);
    assert.ok(r.err[0]!.includes(`ariadne ${name} --help`), r.err[0]);
  });
  test(`ariadne ${name}: every flag it declares is parsed with a value in its bounds`, () => {
    for (const flag of flagsOf(path.command)) {
      const value = flag.type === "boolean" ? [] : [flag.type === "choice" ? flag.choices![0]! : flag.min !== undefined ? String(flag.min) : flag.max !== undefined ? String(flag.max) : "1"];
      const { values } = parseFlags(flagsOf(path.command), [`--${flag.name}`, ...value], name, synopsis(path));
      const got = flag.type === "boolean" ? values.bool(flag.name) : flag.type === "integer" || flag.type === "number" ? values.number(flag.name) : values.string(flag.name);
      assert.equal(got, flag.type === "boolean" ? true : flag.type === "integer" || flag.type === "number" ? Number(value[0]) : value[0], `--${flag.name}`);
    }
  });
}

test("a group without its subcommand says which it takes: exit 2, one line", async () => {
  for (const [argv, says] of [
    [["keys"], /^ariadne: keys needs "create", "revoke" or "signing" \(got nothing\); usage: ariadne keys/],
    [["keys", "signing", "make"], /^ariadne: keys signing needs "create" \(got "make"\)/],
    [["tools", "frob"], /^ariadne: tools needs "list" or "run" \(got "frob"\)/],
  ] as const) {
    const r = await inProcess([...argv]);
    assert.equal(r.code, 2);
    assert.equal(r.err.length, 1, r.err.join("\n"));
    assert.match(r.err[0]!, says);
  }
});

test("a wrong number of arguments: exit 2, one line naming what the command takes", async () => {
  for (const [argv, says] of [
    [["export", "only-a-run"], "ariadne: export takes a run id and a directory: ariadne export RUN DIR"],
    [["verify", "a", "b"], "ariadne: verify takes one run id or bundle directory, got 2"],
    [["worker", "extra"], "ariadne: worker takes no arguments"],
  ] as const) {
    const r = await inProcess([...argv]);
    assert.equal(r.code, 2);
    assert.deepEqual(r.err, [says]);
  }
});

test("the defaults the help shows are the ones the code uses", () => {
  const worker = COMMANDS.find((c) => c.name === "worker")!;
  const shown = (name: string) => worker.flags!.find((f) => f.name === name)!.shownDefault;
  assert.equal(shown("concurrency"), String(WORKER_DEFAULTS.concurrency));
  assert.equal(shown("poll-ms"), String(WORKER_DEFAULTS.pollMs));
  assert.match(shown("lease-ms")!, new RegExp(`\\b${DEFAULT_LEASE_MS}$`));
});

test("ariadne --help lists every command of the table, each with its one-line summary", async () => {
  const r = await inProcess(["--help"]);
  assert.equal(r.code, 0);
  for (const path of paths.filter((p) => !p.command.subcommands)) {
    assert.match(r.out[0]!, new RegExp(`^ {2}${path.words.join(" ").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "m"), path.words.join(" "));
  }
});
