import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../deps.ts";

/** The Swagger UI files served, from the installed swagger-ui-dist (no CDN: the reference works offline). */
const ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
};

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Ariadne API</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "StandaloneLayout" });`;

/** Swagger UI from this origin only; it sets inline styles, and calls the API it documents. */
const DOCS_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function docsRoutes(app: OpenAPIHono<AppEnv>): void {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const cache = new Map<string, Uint8Array>();
  app.get("/docs", (c) => c.html(PAGE, 200, { "Content-Security-Policy": DOCS_POLICY }));
  app.get("/docs/init.js", (c) => c.body(INIT, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/docs/:file", async (c, next) => {
    const file = c.req.param("file");
    const type = ASSETS[file];
    if (!type) return next();
    let body = cache.get(file);
    if (!body) cache.set(file, (body = new Uint8Array(await readFile(join(dir, file)))));
    return c.body(body as Uint8Array<ArrayBuffer>, 200, { "content-type": type, "cache-control": "public, max-age=3600" });
  });
}
