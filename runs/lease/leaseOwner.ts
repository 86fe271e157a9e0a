import { hostname } from "node:os";

/** A lease owner names its host and process, so an owner that died on this host can be recognised at once. */
export function leaseOwner(tag = "ariadne"): string {
  return `${tag}@${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
}

/** True when the owner ran on this host and its process no longer exists; false when unknown or alive. */
export function ownerIsDead(owner: string | null): boolean {
  const m = owner ? /@(.+):(\d+):[0-9a-f]+$/.exec(owner) : null;
  if (!m || m[1] !== hostname()) return false;
  try {
    process.kill(Number(m[2]), 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ESRCH";
  }
}
