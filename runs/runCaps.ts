import { type Caps, type CapsRequest, CONFIGURED_CAPS, resolveCaps } from "../governance/config.ts";

/**
 * The caps a submitter may lower (the command line's cap flags, the API's
 * `caps`): the run's, Main's, every Child's, delegation. Investigate-style
 * Children are not asked for separately: they follow the Child caps.
 */
export type AskedCaps = Omit<CapsRequest, "investigate">;

/**
 * The run's caps: the maximum, lowered where asked. A Child cap lowers
 * investigate-style Children too, never raising them above their own maximum.
 * A cap above the maximum throws governance's ValidationError naming it.
 */
export function resolveRunCaps(asked: AskedCaps = {}, maximum: Caps = CONFIGURED_CAPS): Caps {
  const request: CapsRequest = { ...asked };
  for (const [field, value] of Object.entries(asked.child ?? {}) as [keyof Caps["child"], number | undefined][]) {
    if (value === undefined) continue;
    (request.investigate ??= {})[field] = Math.min(value, maximum.investigate[field]);
  }
  return resolveCaps(request, maximum);
}

/** The per-executor limits frozen at admission (RuntimeOptions.limits): the turn and tool-call caps asked for. */
export function runLimitsOf(asked: AskedCaps = {}): { main: RoleLimits; child: RoleLimits } {
  const pick = (c: Partial<Caps["main"]> = {}): RoleLimits =>
    Object.fromEntries(Object.entries({ maxTurns: c.maxTurns, maxToolCalls: c.maxToolCalls }).filter(([, v]) => v !== undefined));
  return { main: pick(asked.main), child: pick(asked.child) };
}

export interface RoleLimits {
  maxTurns?: number;
  maxToolCalls?: number;
}
