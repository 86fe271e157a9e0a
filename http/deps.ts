import type { Database } from "../db/index.ts";
import type { Principal } from "./auth/principal.ts";
import type { IdempotencyWindows } from "../db/idempotencyKeys.ts";
import type { Limits } from "./middleware/limits.ts";
import type { openStreams } from "./live/openStreams.ts";
import type { queueAdmission } from "./middleware/queueCaps.ts";
import type { EventHub } from "./live/eventHub.ts";
import type { RunReads } from "./runs/auditReads.ts";
import type { RunsPort } from "./runs/runsPort.ts";
import type { AnswerDeltas } from "../runs/index.ts";

export interface AppDeps {
  database: Database;
  runs: RunsPort;
  reads: RunReads;
  hub: EventHub;
  /** "keys": bearer API keys (the default). "none": every caller is an admin of tenant "default" (--no-auth). */
  auth?: "keys" | "none";
  /** How long a key lookup is cached; a revoked key stops working within this. Default 5 s. */
  keyCacheMs?: number;
  /** Largest request body accepted. Default 64 KiB. */
  maxBodyBytes?: number;
  /** Limits across requests: live streams and queued runs per key and tenant, failed authentication per address, the key cache, the revocation window (middleware/limits.ts). */
  limits?: Partial<Limits>;
  /** Browser origins allowed to call the API (CORS), e.g. "https://app.example.com"; none by default (CORS off). */
  corsOrigins?: readonly string[];
  /** Reverse proxies whose X-Forwarded-For names the client (addresses or CIDR ranges); none by default (the peer is the client). */
  trustedProxies?: readonly string[];
  /** Per-key token bucket. Default 20/s, burst 40. */
  rateLimit?: { perSecond: number; burst: number };
  /** Idempotency-Key reservations: in progress 10 minutes, completed 24 hours by default; past that a request may take the key over. */
  idempotency?: IdempotencyWindows;
  /** Where the runs this process hosts publish Main's reply as it streams (`answer.delta`); default the process's own. */
  deltas?: AnswerDeltas;
  /** SSE heartbeat while idle. Default 15 s. */
  heartbeatMs?: number;
  /** Aborted at shutdown: live streams end so the server can close. */
  shutdown?: AbortSignal;
  /** One JSON line per request; default stdout. */
  log?: (line: string) => void;
}

export interface AppEnv {
  Variables: { principal: Principal; requestId: string };
}

/** What the app keeps across requests, for the routes that are limited by it. */
export interface Guards {
  streams: ReturnType<typeof openStreams>;
  admitQueued: ReturnType<typeof queueAdmission>;
}
