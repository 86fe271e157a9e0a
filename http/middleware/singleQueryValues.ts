import type { MiddlewareHandler } from "hono";
import { HttpProblem } from "../problem.ts";

/**
 * A query parameter given twice (`?limit=5&limit=6`) is a 400 naming it, before
 * a route reads it: a schema would see an array and say "received NaN". The
 * `metadata[key]` pairs of the list are the route's own to read (it refuses two
 * values for one key itself).
 */
export function singleQueryValues(): MiddlewareHandler {
  return async (c, next) => {
    for (const [name, values] of Object.entries(c.req.queries())) {
      if (values.length < 2 || name.startsWith("metadata[")) continue;
      const message = `give it once (it was given ${values.length} times)`;
      throw new HttpProblem(400, "VALIDATION", `invalid query: ${name}: ${message}`, { issues: [{ path: ["query", name], message }] });
    }
    await next();
  };
}
