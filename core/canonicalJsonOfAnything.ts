/**
 * RFC 8785 (JCS) canonical JSON of any value, as JSON.stringify would see it:
 * toJSON results and boxed primitives unwrapped, undefined, functions and
 * symbols dropped from objects and null in arrays; NaN, infinities, lone
 * surrogates and cycles refused. Iterative (an explicit stack), so nesting is
 * bounded by the heap, not the call stack. A port of the `canonicalize`
 * package 5.1.0 (Apache-2.0, by Samuel Erdtman), whose bytes and refusals it
 * keeps; the package declares Node >= 22, which this project does not.
 * canonicalJson (core/canonicalJson.ts) writes plain JSON faster and hands
 * everything else here.
 */
export function canonicalJsonOfAnything(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return primitive(value);
  const seen = new Set<object>();
  const root = enter(value, seen);
  if (typeof root !== "object") return root;
  let result = root.keys === null ? "[" : "{";
  const stack: Frame[] = [root];
  outer: while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const container = frame.container as Record<string | number, unknown> & { length: number };
    if (frame.keys === null) {
      while (frame.index < container.length) {
        const i = frame.index++;
        if (i > 0) result += ",";
        const element = container[i];
        const v = element === undefined || typeof element === "symbol" || typeof element === "function" ? null : element;
        if (v === null || typeof v !== "object") {
          result += primitive(v);
          continue;
        }
        const child = enter(v, seen);
        if (typeof child !== "object") {
          result += child === undefined ? "null" : child;
          continue;
        }
        result += child.keys === null ? "[" : "{";
        stack.push(child);
        continue outer;
      }
      result += "]";
    } else {
      const keys = frame.keys;
      while (frame.index < keys.length) {
        const key = keys[frame.index++]!;
        const v = container[key];
        if (v === undefined || typeof v === "symbol" || typeof v === "function") continue;
        if (v === null || typeof v !== "object") {
          if (frame.first) frame.first = false;
          else result += ",";
          result += string(key) + ":" + primitive(v);
          continue;
        }
        // Resolved before the key is written: a toJSON giving no JSON value drops the property.
        const child = enter(v, seen);
        if (child === undefined) continue;
        if (frame.first) frame.first = false;
        else result += ",";
        result += string(key) + ":";
        if (typeof child !== "object") {
          result += child;
          continue;
        }
        result += child.keys === null ? "[" : "{";
        stack.push(child);
        continue outer;
      }
      result += "}";
    }
    // Done: the container (and its toJSON wrappers) leave `seen`, so a sibling reference is no cycle.
    seen.delete(frame.container);
    if (frame.wrappers) for (const wrapper of frame.wrappers) seen.delete(wrapper);
    stack.pop();
  }
  return result;
}

interface Frame {
  container: object;
  /** null for an array; an object's keys in UTF-16 code unit order (sort's default, which JCS prescribes). */
  keys: string[] | null;
  index: number;
  first: boolean;
  wrappers: object[] | null;
}

function string(value: string): string {
  if (!value.isWellFormed()) throw new Error("Lone surrogate is not allowed");
  return JSON.stringify(value);
}

function primitive(value: unknown): string | undefined {
  switch (typeof value) {
    case "number":
      if (Number.isNaN(value)) throw new Error("NaN is not allowed");
      if (!Number.isFinite(value)) throw new Error("Infinity is not allowed");
      return JSON.stringify(value);
    case "string":
      return string(value);
    case "boolean":
      return value ? "true" : "false";
    default:
      // null, or what JSON.stringify writes as nothing (undefined, functions, symbols); a bigint throws as there.
      return JSON.stringify(value);
  }
}

/** A value resolved through toJSON and boxing: its text when primitive, else a frame to descend into (now in `seen`). */
function enter(start: object, seen: Set<object>): string | undefined | Frame {
  let value: unknown = start;
  let wrappers: object[] | null = null;
  while (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    if (seen.has(value)) throw new Error("Circular reference detected");
    seen.add(value);
    (wrappers ??= []).push(value);
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
  if (value === null || typeof value !== "object") {
    if (wrappers) for (const wrapper of wrappers) seen.delete(wrapper);
    return primitive(value);
  }
  if (seen.has(value)) throw new Error("Circular reference detected");
  seen.add(value);
  return { container: value, keys: Array.isArray(value) ? null : Object.keys(value).sort(), index: 0, first: true, wrappers };
}
