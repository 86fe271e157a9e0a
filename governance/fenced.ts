import { FencedError } from "../core/errors.ts";

/** Runs a ledger call; the SQL's stale-epoch refusal (AR409) becomes the same FencedError an append raises. */
export async function fenced<T>(runId: string, epoch: number | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    const err = e as { code?: string; detail?: string };
    if (err.code === "AR409" && epoch !== undefined) throw new FencedError(runId, epoch, err.detail ? Number(err.detail) : null, { cause: e });
    throw e;
  }
}
