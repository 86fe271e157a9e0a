import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { IssueDetail } from "../core/errors.ts";

/** RFC 9457 problem details: the one shape every error of the API takes. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** Set for 400s: each invalid field by its path, e.g. `body.caps.main.maxTurns`. */
  issues?: { path: string; message: string }[];
  [extension: string]: unknown;
}

export const PROBLEM_TYPE = "application/problem+json";

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** An error an HTTP handler throws on purpose; `app.onError` renders it as a problem. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly extra: { issues?: IssueDetail[]; headers?: Record<string, string> } & Record<string, unknown> = {},
  ) {
    super(detail);
  }
}

export function problemBody(status: number, code: string, detail: string, issues?: IssueDetail[], ext: Record<string, unknown> = {}): Problem {
  return {
    type: `urn:ariadne:problem:${code}`,
    title: TITLES[status] ?? "Error",
    status,
    detail,
    ...(issues ? { issues: issues.map((i) => ({ path: i.path.join("."), message: i.message })) } : {}),
    ...ext,
  };
}

/**
 * Through the context, so headers set earlier in the request (X-Request-Id)
 * stay on the response; the body names the request id too, for the caller to quote.
 */
export function problemResponse(c: Context, problem: Problem, headers: Record<string, string> = {}): Response {
  const requestId = c.get("requestId") as string | undefined;
  return c.body(JSON.stringify(requestId ? { ...problem, requestId } : problem), problem.status as ContentfulStatusCode, { "content-type": PROBLEM_TYPE, ...headers });
}
