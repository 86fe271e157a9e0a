import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { claimById } from "../../projections/index.ts";
import { requireAction, visibleRun } from "../access.ts";
import { ClaimParams, OneClaimSchema, RunClaimsSchema } from "../claimSchemas.ts";
import type { AppDeps, AppEnv } from "../deps.ts";
import { RunIdParams } from "../schemas.ts";
import { errors, json } from "./responses.ts";

const listClaims = createRoute({
  operationId: "listClaims",
  method: "get",
  path: "/v1/runs/{id}/claims",
  tags: ["audit"],
  summary: "Every claim of the run's answer followed to its finding, the model turn that wrote it, its quotes, tool calls and sources",
  request: { params: RunIdParams },
  responses: { 200: json(RunClaimsSchema, "The claims in the answer's order (none while the run has no answer)"), ...errors(400, 401, 404, 500, 429) },
});

const getClaim = createRoute({
  operationId: "getClaim",
  method: "get",
  path: "/v1/runs/{id}/claims/{cid}",
  tags: ["audit"],
  summary: "One claim (c1, c2, … in the answer's order) with its whole provenance chain",
  request: { params: ClaimParams },
  responses: { 200: json(OneClaimSchema, "The claim and its chain"), ...errors(400, 401, 404, 500, 429) },
});

export function claimRoutes(deps: AppDeps, app: OpenAPIHono<AppEnv>): void {
  app.openapi(listClaims, async (c) => {
    requireAction(c, "read");
    const { id } = c.req.valid("param");
    await visibleRun(deps, c, id);
    return c.json(await deps.reads.claims(id), 200);
  });

  app.openapi(getClaim, async (c) => {
    requireAction(c, "read");
    const { id, cid } = c.req.valid("param");
    await visibleRun(deps, c, id);
    const claims = await deps.reads.claims(id);
    return c.json({ runId: claims.runId, answer: claims.answer, claim: claimById(claims, cid) }, 200);
  });
}
