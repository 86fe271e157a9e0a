import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";

type Doc = { paths: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };
type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };

// ajv-formats is CommonJS: its default export is the plugin under Node and Deno alike.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;

/**
 * Checks responses against the API's own OpenAPI document with an independent
 * validator (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it): the operation
 * found by method and path, the status declared for it, and the JSON body
 * valid against the declared schema. Returns what is wrong, or null.
 */
export function openApiContract(doc: Doc): (method: string, path: string, response: { status: number; contentType: string; body: unknown }) => string | null {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const routes = Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/[.+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
      op,
    })),
  );
  const compiled = new Map<string, ValidateFunction>();
  return (method, path, response) => {
    const route = routes.find((r) => r.method === method && r.pattern.test(path));
    // A method or path the document has no operation for can only be refused (401 before auth, 404, 405 with
    // Allow): the document cannot declare that answer, so only a 4xx passes; anything else is an undocumented operation.
    if (!route) return response.status >= 400 && response.status < 500 ? null : `${method} ${path}: no operation in the document, answered ${response.status}`;
    const declared = route.op.responses?.[String(response.status)] ?? route.op.responses?.default;
    if (!declared) return `${method} ${route.template}: status ${response.status} is not declared (declared: ${Object.keys(route.op.responses ?? {}).join(", ")})`;
    const type = response.contentType.split(";")[0].trim();
    if (!type.includes("json")) return null;
    const media = declared.content?.[type];
    if (!media?.schema) return `${method} ${route.template} ${response.status}: ${type} is not declared (declared: ${Object.keys(declared.content ?? {}).join(", ") || "no body"})`;
    const key = `${route.method} ${route.template} ${response.status} ${type}`;
    let validate = compiled.get(key);
    if (!validate) {
      // The document's components ride along at the root, so "#/components/schemas/X" resolves as in the document.
      validate = ajv.compile({ ...(media.schema as object), components: doc.components });
      compiled.set(key, validate);
    }
    if (validate(response.body)) return null;
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "(body)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
    return `${method} ${route.template} ${response.status}: the body does not match the document: ${errors.join("; ")}`;
  };
}
