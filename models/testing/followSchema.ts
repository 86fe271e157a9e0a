/** The part of JSON Schema that zod emits for Ariadne's tool inputs. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  [key: string]: unknown;
}

export interface FollowOptions {
  /** Items put in each array, within its minItems / maxItems; default 0 (the fewest a schema allows). */
  arrayItems?: number;
}

/**
 * A tool input built from its JSON Schema and nothing else, as a model that
 * reads only the schema would write it: required properties only, the first
 * enum value or anyOf branch, the smallest number allowed, and for a free
 * string a made-up value named after its property. Tests use it to show that a
 * schema says what the runtime accepts.
 */
export function followSchema(schema: JsonSchema, options: FollowOptions = {}, name = "value"): unknown {
  if ("const" in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return followSchema(schema.anyOf[0], options, name);
  switch (schema.type) {
    case "object":
      return Object.fromEntries((schema.required ?? []).map((key) => [key, followSchema(schema.properties?.[key] ?? {}, options, key)]));
    case "array": {
      const count = Math.min(schema.maxItems ?? Infinity, Math.max(schema.minItems ?? 0, options.arrayItems ?? 0));
      return Array.from({ length: count }, () => followSchema(schema.items ?? {}, options, name));
    }
    case "integer":
    case "number":
      return schema.minimum ?? 0;
    case "boolean":
      return false;
    default:
      return `${name}-value`;
  }
}
