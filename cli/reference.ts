import type { Command } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { NUMERIC_ENV } from "./config.ts";
import { DATA_DIR_FLAG, HELP_FLAG } from "./commands/commonFlags.ts";
import { type Flag, boundsText, flagLabel } from "./flags.ts";
import { allCommands, synopsis } from "./help.ts";

/**
 * docs/reference/cli.md, generated from the command table (`npm run docs:cli`), the very definitions the
 * parser and `--help` read; tests/docs/cliReference.test.ts fails when the page differs from this.
 */
export function cliReference(commands: readonly Command[] = COMMANDS): string {
  const leaves = allCommands(commands).filter((p) => !p.command.subcommands);
  const anchor = (words: string[]) => `ariadne-${words.join("-")}`;
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const flagRow = (f: Flag) =>
    `| \`${flagLabel(f)}\`${f.short ? ` (\`-${f.short}\`)` : ""} | ${cell(f.help)} | ${cell(defaultOf(f))} | ${cell(boundsOf(f))} | ${f.env ? cell(`\`${f.env.split(" ")[0]}\`${f.env.includes(" ") ? f.env.slice(f.env.indexOf(" ")) : ""}`) : ""} |`;
  const flagTable = (flags: Flag[]) => ["| flag | what it does | default | bounds | variable |", "| --- | --- | --- | --- | --- |", ...flags.map(flagRow)].join("\n");

  const lines = [
    "# The command line",
    "",
    "<!-- Generated from the command table (cli/commands/) by `npm run docs:cli`; do not edit by hand: tests/docs/cliReference.test.ts fails when this page differs from what the table generates. -->",
    "",
    "Every command and subcommand of `ariadne`, with its flags, their defaults and their bounds. The parser and each",
    "command's `--help` (`ariadne COMMAND --help`) are read from the same definitions, so this page, the help and what",
    "the parser accepts cannot disagree. What the commands print and how they exit is in",
    "[Using the command line](../guides/command-line.md); the environment in [Environment variables](environment.md).",
    "",
    "A value outside its bounds, an unknown flag or a wrong number of arguments is bad usage: one line naming the flag",
    "or variable and the bound (an unknown flag with the command's usage), exit code 2, before any store is opened.",
    "",
    "| command | what it does |",
    "| --- | --- |",
    ...leaves.map((p) => `| [\`${cell(["ariadne", ...p.words, ...(p.command.args ? [p.command.args] : [])].join(" "))}\`](#${anchor(p.words)}) | ${cell(p.command.summary)} |`),
    "",
    "## Options of every command",
    "",
    flagTable([DATA_DIR_FLAG, HELP_FLAG]),
    "",
    "`--data-dir` is taken by every command that opens a store (not by `tools` or `keys signing create`).",
    "",
  ];
  for (const path of leaves) {
    const { command } = path;
    const own = (command.flags ?? []).filter((f) => !f.group);
    const grouped = (command.flags ?? []).filter((f) => f.group);
    lines.push(`## ariadne ${path.words.join(" ")}`, "", "```text", synopsis(path), "```", "");
    if (command.description) lines.push(command.description, "");
    if (own.length) lines.push(flagTable(own), "");
    const headings = [...new Set(grouped.map((f) => f.group!.heading))];
    for (const heading of headings) lines.push(`${heading[0]!.toUpperCase()}${heading.slice(1)}:`, "", flagTable(grouped.filter((f) => f.group!.heading === heading)), "");
    if (command.notes) lines.push("```text", command.notes, "```", "");
  }
  lines.push(
    "## Environment variables with bounds",
    "",
    "Read once, by `cli/config.ts`, and held to the same bounds as the flags they stand for.",
    "",
    "| variable | what it is | bounds |",
    "| --- | --- | --- |",
    ...NUMERIC_ENV.map((v) => `| \`${v.name}\` | ${cell(v.help)} | ${cell(boundsText(v) ?? "")} |`),
    "",
  );
  return lines.join("\n");
}

function defaultOf(f: Flag): string {
  if (f.default !== undefined && f.default !== false) return String(f.default);
  return f.shownDefault ?? "";
}

function boundsOf(f: Flag): string {
  if (f.type === "choice") return f.choices!.join(", ");
  return boundsText(f) ?? "";
}
