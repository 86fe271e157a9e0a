import { NotFoundError } from "../core/errors.ts";
import type { ToolSpec } from "../models/types.ts";
import type { Tool, ToolEffect } from "./defineTool.ts";
import type { Capability } from "./capabilities.ts";
import { ToolDefinitionError } from "./toolErrors.ts";

/** The tools this host can run, by name. Granting happens elsewhere (computeGrant). */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  register(...tools: Tool[]): this {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new ToolDefinitionError(`tool "${tool.name}" is already registered`);
      this.#tools.set(tool.name, tool);
    }
    return this;
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Name to effect, the shape computeGrant needs to pick read-only defaults. */
  catalog(): Record<string, ToolEffect> {
    return Object.fromEntries([...this.#tools].map(([name, t]) => [name, t.effect]));
  }

  /** Name to capability classes, for the rule that no executor holds all three (tools/capabilities.ts). */
  capabilities(): Record<string, readonly Capability[]> {
    return Object.fromEntries([...this.#tools].map(([name, t]) => [name, t.capabilities]));
  }

  /** Specs in the order asked. An unknown name is a wiring bug, so it throws. */
  specsFor(names: Iterable<string>): ToolSpec[] {
    return [...names].map((name) => {
      const tool = this.#tools.get(name);
      if (!tool) throw new NotFoundError(`tool "${name}" is not registered; registered: ${this.names().join(", ")}`);
      return tool.spec;
    });
  }
}
