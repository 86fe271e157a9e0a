/** Limits across requests, per process (in memory) except the queued runs, which are counted in the database. */
export interface Limits {
  /** Live SSE streams one key may hold at once. Default 20. */
  streamsPerKey: number;
  /** Live SSE streams all of a tenant's keys may hold at once. Default 100. */
  streamsPerTenant: number;
  /** Queued runs (submitted, not yet taken by a worker) one key may have. Default 50. */
  queuedRunsPerKey: number;
  /** Queued runs a tenant may have. Default 200. */
  queuedRunsPerTenant: number;
  /** Failed authentications per client address and per presented key prefix: a token bucket each. Default a burst of 20, then one every 6 s. */
  failedAuth: { perSecond: number; burst: number };
  /** Keys the authenticator remembers (least recently used forgotten first). Default 10,000. */
  keyCacheSize: number;
  /** How often keys holding live streams are checked for revocation: a revoked key's streams end within this. Default 5 s. */
  revocationCheckMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  streamsPerKey: 20,
  streamsPerTenant: 100,
  queuedRunsPerKey: 50,
  queuedRunsPerTenant: 200,
  failedAuth: { perSecond: 1 / 6, burst: 20 },
  keyCacheSize: 10_000,
  revocationCheckMs: 5_000,
};
