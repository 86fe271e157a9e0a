import { isConnectionError, isDatabaseUnavailable } from "../core/connectionLoss.ts";
import { AriadneError } from "../core/errors.ts";

/**
 * A hosting command (run, resume) that lost the database past its wait: one
 * line saying so, what became of the run and the exact command that finishes
 * it. Anything else is passed through as it is.
 */
export function lostDatabase(error: unknown, runId: string): unknown {
  if (!isConnectionError(error) && !isDatabaseUnavailable(error)) return error;
  const what = isDatabaseUnavailable(error) ? (error as Error).message : `the database became unreachable: ${(error as Error)?.message ?? String(error)}`;
  return new AriadneError(
    "DATABASE_UNAVAILABLE",
    503,
    `${what}; run ${runId} is left as it stands (a worker takes it over once its lease runs out, or finish it here once the database answers): ariadne resume ${runId}`,
    { cause: error },
  );
}
