
/**
 * What holding a tool exposes, for the rule that keeps an injected instruction
 * from doing harm: an executor that reads untrusted outside content (`network`)
 * may not also hold the user's private data (`private_data`) and a tool that
 * changes the world (`effects`). Any two are fine; all three are never granted.
 */
export type Capability = "network" | "private_data" | "effects";

export const CAPABILITIES: readonly Capability[] = ["network", "private_data", "effects"];

/** A tool's classes: those it declares, plus `effects` for every effectful tool (declared or not). */
export function capabilitiesOf(declared: readonly Capability[] | undefined, effect: "read_only" | "idempotent" | "effectful"): Capability[] {
  const classes = new Set(declared ?? []);
  if (effect === "effectful") classes.add("effects");
  return CAPABILITIES.filter((c) => classes.has(c));
}

/**
 * The classes a set of tools covers, and the tools that bring each; `null` when
 * the set is safe, else a sentence naming which tools close the triad.
 */
export function capabilityConflict(tools: readonly string[], classesOf: Readonly<Record<string, readonly Capability[]>>): string | null {
  const by = new Map<Capability, string[]>(CAPABILITIES.map((c) => [c, []]));
  for (const name of tools) for (const c of classesOf[name] ?? []) by.get(c)!.push(name);
  if (CAPABILITIES.some((c) => by.get(c)!.length === 0)) return null;
  const list = (c: Capability) => `${c} (${by.get(c)!.join(", ")})`;
  return `these tools together would read untrusted content, hold private data and act on the world: ${CAPABILITIES.map(list).join(", ")}; an executor may hold at most two of these classes, so drop the tools of one`;
}
