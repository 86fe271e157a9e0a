import { createHash } from "node:crypto";
import { canonicalJson } from "../../core/canonicalJson.ts";
import type { IdempotencyKeys } from "../../db/idempotencyKeys.ts";
import { HttpProblem } from "../problem.ts";

export type { IdempotencyWindows } from "../../db/idempotencyKeys.ts";

/** The same body however its keys are ordered or spaced: sha256 of its RFC 8785 JSON. */
export const bodyDigest = (body: unknown): string => createHash("sha256").update(canonicalJson(body) ?? "", "utf8").digest("hex");

/**
 * When to retry a key in progress: a second while its holder is likely still
 * submitting; for one held longer (a crashed holder), when it expires.
 */
export const retryAfterSeconds = (r: { ageSeconds: number; expiresInSeconds: number }): number =>
  r.ageSeconds < 10 ? 1 : r.expiresInSeconds;

export type Submitted<T> = { kind: "created"; value: T } | { kind: "replay"; runId: string };

/**
 * Idempotency-Key for a submission: with no key, `create` runs. With one, the
 * key is reserved first: the same key and body replays the run it names, another
 * body is 409, a reservation still held by another request is 409 with
 * Retry-After. A failed `create` gives its key back so the client can retry
 * with it; a successful one names its run under the key.
 */
export function idempotency(keys: IdempotencyKeys) {
  return async function once<T extends { id: string }>(tenant: string, key: string | undefined, body: unknown, create: () => Promise<T>): Promise<Submitted<T>> {
    if (!key) return { kind: "created", value: await create() };
    const reservation = await keys.reserve(tenant, key, bodyDigest(body));
    if (reservation.kind === "conflict") throw new HttpProblem(409, "IDEMPOTENCY_CONFLICT", `Idempotency-Key "${key}" was used with a different body; use a new key for a new run`);
    if (reservation.kind === "in_progress") {
      throw new HttpProblem(
        409,
        "IDEMPOTENCY_IN_PROGRESS",
        `a request with Idempotency-Key "${key}" is still being processed; retry shortly (the reservation expires in ${reservation.expiresInSeconds} s if that request never finishes)`,
        { headers: { "Retry-After": String(retryAfterSeconds(reservation)) } },
      );
    }
    if (reservation.kind === "replay") return { kind: "replay", runId: reservation.runId };
    let value: T;
    try {
      value = await create();
    } catch (e) {
      await keys.release(reservation.held);
      throw e;
    }
    await keys.complete(reservation.held, value.id);
    return { kind: "created", value };
  };
}
