import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../deps.ts";

/** An HTML answer that names no policy of its own gets this one: nothing loads, nothing frames it. */
export const DEFAULT_HTML_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Headers every answer carries: `X-Content-Type-Options: nosniff` (a JSON body
 * quoting a page is never run as script or HTML), no referrer sent on, and for
 * HTML a Content-Security-Policy that forbids framing (clickjacking): a route's
 * own policy is kept and `frame-ancestors 'none'` added when it lacks one.
 */
export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const set = (name: string, value: string) => {
      try {
        c.res.headers.set(name, value);
      } catch {
        // Immutable headers (a fetched Response passed through): copy once, then set.
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set(name, value);
      }
    };
    set("X-Content-Type-Options", "nosniff");
    set("Referrer-Policy", "no-referrer");
    if (/^text\/html\b/i.test(c.res.headers.get("content-type") ?? "")) {
      const policy = c.res.headers.get("content-security-policy");
      if (!policy) set("Content-Security-Policy", DEFAULT_HTML_POLICY);
      else if (!/(^|;)\s*frame-ancestors\s/i.test(policy)) set("Content-Security-Policy", `${policy}; frame-ancestors 'none'`);
      set("X-Frame-Options", "DENY");
    }
  };
}
