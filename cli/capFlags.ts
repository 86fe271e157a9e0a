import { ValidationError, type IssueDetail } from "../core/errors.ts";
import { type Caps, CONFIGURED_CAPS } from "../governance/config.ts";
import { type AskedCaps, resolveRunCaps, runLimitsOf } from "../runs/runCaps.ts";
import { type Flag, flagHelpLine } from "./flags.ts";

/**
 * `ariadne run` and `ariadne submit` flags that lower a run's caps. Each flag
 * sets one cap, in the flag's unit; a value above the configured maximum is
 * refused naming the flag and the maximum. What the caps become (Child caps
 * lowering investigate-style Children too) is runs/runCaps.ts's, as for the API.
 */
interface CapFlag {
  help: string;
  /** The configured maximum, in the flag's unit. */
  max: (c: Caps) => number;
  /** The unit's value -> the cap it lowers. */
  apply: (value: number) => AskedCaps;
  decimal?: boolean;
}

const seconds = (ms: number) => ms / 1000;

const FLAGS = {
  "max-run-tokens": { help: "input+output tokens of the whole run", max: (c) => c.run.maxTokens, apply: (v) => ({ run: { maxTokens: v } }) },
  "max-cost-usd": {
    help: "cost of the whole run in USD (an alert is raised at 80%)",
    max: (c) => c.run.maxCostMicros / 1_000_000,
    apply: (v) => ({ run: { maxCostMicros: Math.round(v * 1_000_000) } }),
    decimal: true,
  },
  "max-run-seconds": { help: "wall clock of the whole run", max: (c) => seconds(c.run.wallClockMs), apply: (v) => ({ run: { wallClockMs: v * 1000 } }) },
  "max-main-turns": { help: "model turns of Main", max: (c) => c.main.maxTurns, apply: (v) => ({ main: { maxTurns: v } }) },
  "max-main-tool-calls": { help: "tool calls of Main", max: (c) => c.main.maxToolCalls, apply: (v) => ({ main: { maxToolCalls: v } }) },
  "max-child-turns": { help: "model turns of each Child", max: (c) => c.child.maxTurns, apply: (v) => ({ child: { maxTurns: v } }) },
  "max-child-tool-calls": { help: "tool calls of each Child", max: (c) => c.child.maxToolCalls, apply: (v) => ({ child: { maxToolCalls: v } }) },
  "max-child-tokens": { help: "tokens of each Child", max: (c) => c.child.maxTokens, apply: (v) => ({ child: { maxTokens: v } }) },
  "max-child-seconds": { help: "wall clock of each Child", max: (c) => seconds(c.child.wallClockMs), apply: (v) => ({ child: { wallClockMs: v * 1000 } }) },
  "max-depth": { help: "delegation depth (Main is 0)", max: (c) => c.delegation.maxDepth, apply: (v) => ({ delegation: { maxDepth: v } }) },
  "max-fan-out": { help: "Children one executor may admit", max: (c) => c.delegation.maxFanOut, apply: (v) => ({ delegation: { maxFanOut: v } }) },
} satisfies Record<string, CapFlag>;

export type CapFlagName = keyof typeof FLAGS;

const CAPS_GROUP = { name: "cap flags", heading: "run caps (lower than the configured maximum, never higher)" };

/**
 * The cap flags as the command table declares them, each with its configured maximum. They are read as
 * text and checked by askedCapsFromFlags, which names every flag out of bounds at once, as the API does.
 */
export function capFlags(maximum: Caps = CONFIGURED_CAPS): Flag[] {
  return Object.entries(FLAGS as Record<string, CapFlag>).map(([name, f]) => ({
    name,
    type: "string",
    arg: f.decimal ? "X" : "N",
    help: `${f.help} (at most ${f.max(maximum)})`,
    group: CAPS_GROUP,
  }));
}

/** For node:util parseArgs: every cap flag takes a value. */
export const CAP_FLAG_OPTIONS = Object.fromEntries(Object.keys(FLAGS).map((name) => [name, { type: "string" as const }])) as Record<
  CapFlagName,
  { type: "string" }
>;

/** Usage lines for the cap flags, with their configured maximum. */
export function capFlagsUsage(maximum: Caps = CONFIGURED_CAPS): string {
  return capFlags(maximum).map(flagHelpLine).join("\n");
}

/**
 * The caps the flags given ask for, in caps' units. A bad value or one above
 * the maximum throws a ValidationError naming every such flag.
 */
export function askedCapsFromFlags(values: Partial<Record<string, string | number | boolean | undefined>>, maximum: Caps = CONFIGURED_CAPS): AskedCaps {
  const issues: IssueDetail[] = [];
  const request: Record<string, Record<string, number>> = {};
  for (const [name, flag] of Object.entries(FLAGS as Record<string, CapFlag>)) {
    const raw = values[name];
    if (raw === undefined) continue;
    const text = String(raw).trim();
    const value = Number(text);
    const pattern = flag.decimal ? /^\d+(\.\d+)?$/ : /^\d+$/;
    if (!pattern.test(text) || !(value > 0)) {
      issues.push({ path: [`--${name}`], message: `expected a positive ${flag.decimal ? "number" : "integer"}, got "${text}"` });
    } else if (value > flag.max(maximum)) {
      issues.push({ path: [`--${name}`], message: `${text} is above the configured maximum ${flag.max(maximum)}; a run may only lower its caps` });
    } else {
      for (const [group, fields] of Object.entries(flag.apply(value))) Object.assign((request[group] ??= {}), fields);
    }
  }
  if (issues.length) throw new ValidationError("cap flags refused", issues);
  return request as AskedCaps;
}

/** The run's caps from parsed flag values: the configured maximum lowered by each flag given. */
export function capsFromFlags(values: Partial<Record<string, string | number | boolean | undefined>>, maximum: Caps = CONFIGURED_CAPS): Caps {
  return resolveRunCaps(askedCapsFromFlags(values, maximum), maximum);
}

/**
 * The per-executor limits the runtime freezes at admission (RuntimeOptions.limits)
 * for the turn and tool-call flags given, so they hold even before the runtime
 * consults the governance port. Flags not given leave the runtime's defaults.
 */
export function runtimeLimitsFromFlags(values: Partial<Record<string, string | number | boolean | undefined>>) {
  return runLimitsOf(askedCapsFromFlags(values));
}
