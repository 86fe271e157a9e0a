import type { Database } from "../../db/index.ts";
import { revokedKeyIds } from "../../db/apiKeys.ts";
import type { Principal } from "../auth/principal.ts";
import { rateLimitFields } from "../middleware/limitAnswer.ts";

export type StreamSlot =
  | { ok: true; signal: AbortSignal; close(): void }
  | { ok: false; detail: string; retryAfterSeconds: number; fields: Record<string, string> };

/** A refused stream is worth retrying once another has ended; streams last minutes, so not at once. */
const STREAM_RETRY_SECONDS = 5;

/**
 * Live SSE streams of this process: at most `perKey` for one key and
 * `perTenant` for one tenant at once; and while any are open, their keys are
 * checked for revocation every `checkMs` (one query for all of them), so a
 * revoked key's streams end within that window instead of at the end of the run.
 */
export function openStreams(o: { database: Database; perKey: number; perTenant: number; checkMs: number; onRevoked?: (keyId: string) => void }) {
  const byKey = new Map<string, number>();
  const byTenant = new Map<string, number>();
  const live = new Set<{ keyId: string | null; abort: AbortController }>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const count = (m: Map<string, number>, k: string, d: number) => {
    const n = (m.get(k) ?? 0) + d;
    if (n > 0) m.set(k, n);
    else m.delete(k);
  };

  async function sweep(): Promise<void> {
    const ids = [...new Set([...live].map((s) => s.keyId).filter((k): k is string => k !== null))];
    if (!ids.length) return;
    for (const key_id of await revokedKeyIds(o.database, ids)) {
      o.onRevoked?.(key_id);
      for (const s of live) if (s.keyId === key_id) s.abort.abort();
    }
  }

  return {
    open(p: Principal): StreamSlot {
      const keyStreams = p.keyId === null ? 0 : (byKey.get(p.keyId) ?? 0);
      const tenantStreams = byTenant.get(p.tenant) ?? 0;
      const refuse = (what: string, max: number, name: string): StreamSlot => ({
        ok: false,
        detail: `too many live event streams: ${what} (${max}) reached; close one, or retry after ${STREAM_RETRY_SECONDS} s`,
        retryAfterSeconds: STREAM_RETRY_SECONDS,
        fields: rateLimitFields(name, max, 0, STREAM_RETRY_SECONDS),
      });
      if (p.keyId !== null && keyStreams >= o.perKey) return refuse("streams per key", o.perKey, "streams-per-key");
      if (tenantStreams >= o.perTenant) return refuse("streams per tenant", o.perTenant, "streams-per-tenant");
      const stream = { keyId: p.keyId, abort: new AbortController() };
      live.add(stream);
      if (p.keyId !== null) count(byKey, p.keyId, 1);
      count(byTenant, p.tenant, 1);
      if (!timer) {
        timer = setInterval(() => void sweep().catch(() => {}), o.checkMs);
        timer.unref?.();
      }
      let closed = false;
      return {
        ok: true,
        signal: stream.abort.signal,
        close() {
          if (closed) return;
          closed = true;
          live.delete(stream);
          if (p.keyId !== null) count(byKey, p.keyId, -1);
          count(byTenant, p.tenant, -1);
          if (!live.size && timer) {
            clearInterval(timer);
            timer = undefined;
          }
        },
      };
    },
  };
}
