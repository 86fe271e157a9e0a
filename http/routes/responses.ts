import type { ZodType } from "zod";
import { PROBLEM_TYPE } from "../problem.ts";
import { ProblemSchema } from "../schemas.ts";

export const json = <T extends ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });

const DESCRIPTIONS: Record<number, string> = {
  400: "The request is malformed; `issues` names each invalid field by path",
  401: "No API key, or an unknown or revoked one",
  403: "The key's role may not do this",
  404: "No such run (or not one of this tenant's)",
  409: "Conflicts with the current state (Idempotency-Key reused with another body, run already stopped)",
  413: "The body is larger than the server accepts",
  415: "The body is not application/json",
  422: "Well-formed but not acceptable (caps above the defaults, unknown profiles or scenario, a question with no model configured, a question and a scenario at once)",
  429: "Rate limited; retry after `Retry-After` seconds",
  500: "A stored run is damaged (`DAMAGED_RUN`: the detail names the run, its stream and the first version that cannot be read; the run is quarantined, other runs are unaffected), or the server failed (`INTERNAL`: quote the request id)",
  503: "Not ready (database unreachable, migrations pending)",
};

/** Problem-details responses for the given statuses, for the OpenAPI document. */
export function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, { description: DESCRIPTIONS[s] ?? "Error", content: { [PROBLEM_TYPE]: { schema: ProblemSchema } } }]));
}
