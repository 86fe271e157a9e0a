import { parseArgs } from "node:util";
import { UsageError, firstSentence, joinNegativeValues } from "./usage.ts";

/**
 * One flag of one command, declared once: the parser, the command's --help and the generated reference
 * (docs/reference/cli.md) are all read from this, so they cannot disagree.
 */
export interface Flag {
  /** Without the dashes: `lease-ms`. */
  name: string;
  /**
   * boolean: present or not; string: any text; integer / number: parsed and held to `min` / `max`;
   * choice: one of `choices`. A cap flag is a string here: runs/runCaps.ts checks it against the
   * configured maximum, as for the API (cli/capFlags.ts).
   */
  type: "boolean" | "string" | "integer" | "number" | "choice";
  /** The value's name in the usage: N, MS, DIR. */
  arg?: string;
  /** One line for --help. */
  help: string;
  /** The value when the flag is absent (shown in the help). */
  default?: string | number | boolean;
  /** What happens when the flag is absent, for the help only, where the command decides (the value is then undefined). */
  shownDefault?: string;
  /** Bounds of an integer or number, inclusive; `above` is an exclusive lower bound (a positive number). */
  min?: number;
  max?: number;
  above?: number;
  /** Appended to a bound when it is named: " ms". */
  unit?: string;
  choices?: readonly string[];
  /** The environment variable the flag stands for (read by cli/config.ts, with the same bounds); the flag wins. */
  env?: string;
  short?: string;
  /** What a valid value is, for the message when the value is not one: "a port number". */
  expects?: string;
  /** The whole message for a value that is not one, when the flag has its own wording. */
  invalid?: (raw: string) => string;
  /** A heading the flag is listed under, and its name in the one-line usage: "cap flags". */
  group?: { name: string; heading: string };
}

export type FlagValue = string | number | boolean | undefined;

/** The parsed values of one command's flags, typed by how they were declared. */
export class FlagValues {
  readonly #values: Map<string, FlagValue>;
  readonly #flags: Map<string, Flag>;
  constructor(flags: readonly Flag[], values: Map<string, FlagValue>) {
    this.#flags = new Map(flags.map((f) => [f.name, f]));
    this.#values = values;
  }
  #declared(name: string, types: Flag["type"][]): void {
    const flag = this.#flags.get(name);
    // A command reading a flag it did not declare (or as another type) is a bug in the table, not bad usage.
    if (!flag || !types.includes(flag.type)) throw new Error(`the command reads --${name} as ${types.join("/")}, but declares ${flag ? flag.type : "no such flag"}`);
  }
  bool(name: string): boolean {
    this.#declared(name, ["boolean"]);
    return this.#values.get(name) === true;
  }
  string(name: string): string | undefined {
    this.#declared(name, ["string", "choice"]);
    return this.#values.get(name) as string | undefined;
  }
  number(name: string): number | undefined {
    this.#declared(name, ["integer", "number"]);
    return this.#values.get(name) as number | undefined;
  }
  /** Every value given or defaulted, by flag name (cap flags are read this way, as strings). */
  record(): Record<string, FlagValue> {
    return Object.fromEntries(this.#values);
  }
}

/** The bounds of a flag or variable in words: "at least 1000 ms", "1 to 1000", "more than 0". */
export function boundsText(b: Pick<Flag, "min" | "max" | "above" | "unit">): string | null {
  const u = b.unit ?? "";
  if (b.min !== undefined && b.max !== undefined) return `${b.min} to ${b.max}${u}`;
  if (b.above !== undefined && b.max !== undefined) return `more than ${b.above}, at most ${b.max}${u}`;
  if (b.min !== undefined) return `at least ${b.min}${u}`;
  if (b.above !== undefined) return `more than ${b.above}${u}`;
  if (b.max !== undefined) return `at most ${b.max}${u}`;
  return null;
}

const wholeNumber = /^\d+$/;
const decimal = /^\d+(\.\d+)?$/;

/**
 * A number given as text, held to its declared type and bounds. `name` is how the user gave it
 * (`--lease-ms` or `ARIADNE_LEASE_MS`), so the message names what to change. Throws a UsageError of one line.
 */
export function checkedNumber(name: string, raw: string, spec: Pick<Flag, "type" | "min" | "max" | "above" | "unit" | "expects" | "invalid">): number {
  const text = raw.trim();
  const integer = spec.type === "integer";
  if (!(integer ? wholeNumber : decimal).test(text)) {
    if (spec.invalid) throw new UsageError(spec.invalid(raw));
    const bounds = spec.expects ? null : boundsText(spec);
    const expects = spec.expects ?? (integer ? (spec.min !== undefined && spec.min >= 1 ? "a positive integer" : "a non-negative integer") : "a non-negative number");
    throw new UsageError(`${name} must be ${expects}${bounds ? `, ${bounds}` : ""} (got "${raw}")`);
  }
  const value = Number(text);
  const u = spec.unit ?? "";
  if (spec.min !== undefined && value < spec.min) throw new UsageError(`${name} must be at least ${spec.min}${u} (got ${text})`);
  if (spec.above !== undefined && !(value > spec.above)) {
    if (spec.invalid) throw new UsageError(spec.invalid(raw));
    throw new UsageError(`${name} must be more than ${spec.above}${u} (got ${text})`);
  }
  if (spec.max !== undefined && value > spec.max) throw new UsageError(`${name} must be at most ${spec.max}${u} (got ${text})`);
  return value;
}

/** "a, b or c". */
const orList = (xs: readonly string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} or ${xs.at(-1)}`);

/**
 * Parses a command's arguments against its flags: an unknown flag, a missing value, a number out of its
 * bounds or a choice not offered is a UsageError of one line naming the flag. `command` is how the usage
 * names the command (`keys signing create`), `synopsis` its one-line usage, given with an unknown flag.
 */
export function parseFlags(flags: readonly Flag[], argv: string[], command: string, synopsis: string): { values: FlagValues; positionals: string[] } {
  const options = Object.fromEntries(
    flags.map((f) => [f.name, { type: f.type === "boolean" ? ("boolean" as const) : ("string" as const), ...(f.short && { short: f.short }) }]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeValues(argv, options), allowPositionals: true, strict: true, options });
  } catch (e) {
    throw new UsageError(`${firstSentence(e)}; ${synopsis} (ariadne ${command} --help for more)`);
  }
  const values = new Map<string, FlagValue>();
  for (const flag of flags) {
    const raw = (parsed.values as Record<string, string | boolean | undefined>)[flag.name];
    values.set(flag.name, raw === undefined ? flag.default : typedValue(flag, raw));
  }
  return { values: new FlagValues(flags, values), positionals: parsed.positionals };
}

function typedValue(flag: Flag, raw: string | boolean): FlagValue {
  if (typeof raw === "boolean") return raw;
  if (flag.type === "integer" || flag.type === "number") return checkedNumber(`--${flag.name}`, raw, flag);
  if (flag.type === "choice" && !flag.choices!.includes(raw)) {
    throw new UsageError(flag.invalid ? flag.invalid(raw) : `--${flag.name} takes ${orList(flag.choices!)}, got "${raw}"`);
  }
  return raw;
}

/** `--lease-ms MS` */
export const flagLabel = (f: Flag) => `--${f.name}${f.type === "boolean" ? "" : ` ${f.arg ?? (f.type === "choice" ? f.choices!.join("|") : "VALUE")}`}`;

/** What the help says after a flag's own line: its default, bounds and variable. */
export function flagNotes(f: Flag): string[] {
  const notes: string[] = [];
  if (f.type === "choice") notes.push(`one of ${f.choices!.join(", ")}`);
  const bounds = boundsText(f);
  if (bounds) notes.push(bounds);
  if (f.default !== undefined && f.default !== false) notes.push(`default ${f.default}`);
  else if (f.shownDefault !== undefined) notes.push(`default ${f.shownDefault}`);
  if (f.env) notes.push(`env ${f.env}`);
  return notes;
}

/** A flag's lines in a command's help: the label in a column, the help and its notes after it. */
export function flagHelpLine(f: Flag): string {
  const label = `${f.short ? `-${f.short}, ` : ""}${flagLabel(f)}`;
  const notes = flagNotes(f);
  return columns(label, notes.length ? `${f.help} (${notes.join("; ")})` : f.help, 24);
}

/** `  label   text`, the text wrapped to 100 columns under itself; a label wider than its column gets a line of its own. */
export function columns(label: string, text: string, width: number): string {
  const indent = " ".repeat(width + 3);
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent.length + line.length + 1 + word.length > 100) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  const body = lines.join(`\n${indent}`);
  return label.length > width ? `  ${label}\n${indent}${body}` : `  ${label.padEnd(width)} ${body}`;
}
