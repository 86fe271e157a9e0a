import type { Command } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { DATA_DIR_FLAG, HELP_FLAG } from "./commands/commonFlags.ts";
import { type Flag, columns, flagHelpLine, flagLabel } from "./flags.ts";

/** A command as the user types it, with the commands above it: `["keys", "signing", "create"]`. */
export interface CommandPath {
  words: string[];
  command: Command;
}

/** The flags a command is parsed with: its own, then --data-dir when it opens a store, then --help. */
export function flagsOf(command: Command): Flag[] {
  return [...(command.flags ?? []), ...(command.store === false ? [] : [DATA_DIR_FLAG]), HELP_FLAG];
}

/** Every command and subcommand, depth first, as the help and the reference list them. */
export function allCommands(commands: readonly Command[] = COMMANDS, above: string[] = []): CommandPath[] {
  return commands.flatMap((command) => {
    const words = [...above, command.name];
    return [{ words, command }, ...allCommands(command.subcommands ?? [], words)];
  });
}

/** The usage's parts after `ariadne <words>`: the arguments, each flag not in a group, each group once. */
function usageParts(command: Command): string[] {
  const parts = command.args ? [command.args] : [];
  const groups = new Set<string>();
  for (const f of flagsOf(command)) {
    if (f === HELP_FLAG) continue;
    if (f.group) {
      if (!groups.has(f.group.name)) parts.push(`[${f.group.name}]`);
      groups.add(f.group.name);
    } else parts.push(`[${flagLabel(f)}]`);
  }
  return parts;
}

/** `usage: ariadne report RUN [--json] [--data-dir DIR]`, on one line (errors quote it). */
export function synopsis(path: CommandPath): string {
  if (path.command.subcommands) return `usage: ariadne ${path.words.join(" ")} ${path.command.subcommands.map((s) => s.name).join("|")} …`;
  return ["usage: ariadne", ...path.words, ...usageParts(path.command)].join(" ");
}

/** The usage wrapped under its command, for --help. */
function wrappedSynopsis(path: CommandPath, first = "usage:"): string {
  const head = `${first} ariadne ${path.words.join(" ")}`;
  const indent = " ".repeat(head.length + 1);
  const lines = [head];
  for (const part of usageParts(path.command)) {
    const last = lines.length - 1;
    if (lines[last]!.length + 1 + part.length > 100 && lines[last] !== head) lines.push(`${indent}${part}`);
    else lines[last] += ` ${part}`;
  }
  return lines.join("\n");
}

/** A command's own --help: its usage, what it does, its flags (grouped ones under their heading), its notes. */
export function commandHelp(path: CommandPath): string {
  const { command } = path;
  if (command.subcommands) {
    const leaves = allCommands(command.subcommands, path.words).filter((p) => !p.command.subcommands);
    const usage = leaves.map((p, i) => wrappedSynopsis(p, i === 0 ? "usage:" : "      ")).join("\n");
    return [usage, command.summary, leaves.map((p) => commandHelp(p)).join("\n\n")].join("\n\n");
  }
  const flags = flagsOf(command);
  const sections = [wrappedSynopsis(path)];
  if (command.description) sections.push(command.description);
  sections.push(`options:\n${flags.filter((f) => !f.group).map(flagHelpLine).join("\n")}`);
  const headings = [...new Set(flags.filter((f) => f.group).map((f) => f.group!.heading))];
  for (const heading of headings) sections.push(`${heading}:\n${flags.filter((f) => f.group?.heading === heading).map(flagHelpLine).join("\n")}`);
  if (command.notes) sections.push(command.notes);
  return sections.join("\n\n");
}

/** `  report RUN         what a run spent…`: a command in the list of commands. */
function listLine(path: CommandPath): string {
  const label = [...path.words, ...(path.command.args ? [path.command.args] : [])].join(" ");
  return columns(label, path.command.summary, 18);
}

/** `ariadne --help`: every command, the flags every command takes, and `run`'s own (the command most use). */
export function globalHelp(environment: readonly { name: string; help: string }[]): string {
  const leaves = allCommands().filter((p) => !p.command.subcommands);
  const run = allCommands().find((p) => p.words.join(" ") === "run")!;
  const runFlags = (run.command.flags ?? []).filter((f) => !f.group);
  const caps = (run.command.flags ?? []).filter((f) => f.group);
  return [
    "usage: ariadne <command> [options]\n       ariadne <command> --help      a command's own usage, flags, defaults and bounds",
    `commands:\n${leaves.map(listLine).join("\n")}`,
    `options of every command:\n${[DATA_DIR_FLAG, HELP_FLAG].map(flagHelpLine).join("\n")}`,
    `options of ariadne run:\n${runFlags.map(flagHelpLine).join("\n")}`,
    `${caps[0]!.group!.heading}, for ariadne run and ariadne submit:\n${caps.map(flagHelpLine).join("\n")}`,
    `environment (docs/reference/environment.md has them all):\n${environment.map((e) => columns(e.name, e.help, 24)).join("\n")}`,
  ].join("\n\n");
}
