import { type Capability, capabilityConflict } from "./capabilities.ts";
import type { ToolEffect } from "./defineTool.ts";

/** The one tool that creates executors; its reach is limited by depth. */
export const DELEGATE_TOOL = "delegate";

export interface GrantInput {
  /**
   * Tools asked for: explicit tools in the delegation, else the profile's list.
   * Absent or empty means "nothing specific", which gives a Child the read-only default.
   */
  requested?: readonly string[];
  /** What the parent executor holds; null for Main, which has no parent. */
  parentGrant: readonly string[] | null;
  /** What the root task's governance allows anywhere in the run. */
  rootAllowed: readonly string[];
  /** Every tool the host knows, with its effect (ToolRegistry.catalog()). */
  catalog: Readonly<Record<string, ToolEffect>>;
  isChild: boolean;
  /** 0 for Main, 1 for its Children, and so on. */
  depth: number;
  /** Executors at depth >= maxDepth may not delegate. Default 1: only Main delegates. */
  maxDepth?: number;
  /** Each tool's capability classes (ToolRegistry.capabilities()); absent classes count as none. */
  capabilities?: Readonly<Record<string, readonly Capability[]>>;
}

export type GrantRefusalReason = "unknown_tool" | "delegation_depth" | "not_allowed_by_root" | "not_held_by_parent" | "capability_triad";

export interface GrantRefusal {
  name: string;
  reason: GrantRefusalReason;
  detail: string;
}

export interface Grant {
  granted: string[];
  /** Requested names that were not granted, so the runtime can record why. */
  refused: GrantRefusal[];
  /**
   * Set when the tools asked for would give one executor all three capability
   * classes (tools/capabilities.ts): a delegation asking for them is refused with
   * this reason, and nothing of the triad is granted.
   */
  conflict?: string;
}

/**
 * Granted = requested ∩ held by the parent ∩ allowed by the root. A profile or
 * method can only narrow what an executor gets, never widen it.
 */
export function computeGrant(input: GrantInput): Grant {
  const { catalog, isChild, depth } = input;
  const maxDepth = input.maxDepth ?? 1;
  const root = new Set(input.rootAllowed);
  const held = new Set(input.parentGrant ?? input.rootAllowed);
  const asked = [...new Set(input.requested ?? [])];

  if (asked.length === 0) {
    // Nothing specific asked: Main gets what it may hold; a Child only what cannot mutate.
    const granted = [...held].filter(
      (name) =>
        root.has(name) &&
        Object.hasOwn(catalog, name) &&
        (!isChild || catalog[name] === "read_only") &&
        (name !== DELEGATE_TOOL || depth < maxDepth),
    );
    return withoutTriad({ granted, refused: [] }, input.capabilities);
  }

  const granted: string[] = [];
  const refused: GrantRefusal[] = [];
  for (const name of asked) {
    const refusal = refuse(name);
    if (refusal) refused.push(refusal);
    else granted.push(name);
  }
  return withoutTriad({ granted, refused }, input.capabilities);

  function refuse(name: string): GrantRefusal | null {
    if (!Object.hasOwn(catalog, name)) return { name, reason: "unknown_tool", detail: `no tool named "${name}" is registered` };
    if (name === DELEGATE_TOOL && depth >= maxDepth) {
      return {
        name,
        reason: "delegation_depth",
        detail: `an executor at depth ${depth} may not delegate (maxDepth ${maxDepth})`,
      };
    }
    if (!root.has(name)) return { name, reason: "not_allowed_by_root", detail: `"${name}" is not allowed for this run` };
    if (isChild && !held.has(name)) {
      return { name, reason: "not_held_by_parent", detail: `the parent executor does not hold "${name}"` };
    }
    return null;
  }
}

/**
 * A grant covering network, private data and effects at once loses its effects
 * tools (the class an injected instruction would use to do harm) and says why.
 */
function withoutTriad(grant: Grant, capabilities: GrantInput["capabilities"]): Grant {
  if (!capabilities) return grant;
  const conflict = capabilityConflict(grant.granted, capabilities);
  if (!conflict) return grant;
  const acting = grant.granted.filter((name) => capabilities[name]?.includes("effects"));
  return {
    granted: grant.granted.filter((name) => !acting.includes(name)),
    refused: [...grant.refused, ...acting.map((name) => ({ name, reason: "capability_triad" as const, detail: conflict }))],
    conflict,
  };
}
