import type { ColumnType, Generated } from "kysely";

/** Kysely's view of Ariadne's tables. bigint columns are read as text and converted where used. */
export interface EventsTable {
  global_position: Generated<string>;
  event_id: string;
  stream_id: string;
  stream_version: number;
  run_id: string;
  executor_id: string;
  type: string;
  schema_version: number;
  data: ColumnType<unknown, string, never>;
  metadata: ColumnType<unknown, string, never>;
  recorded_at: ColumnType<Date, string, never>;
  /** 32 bytes since migration 0018; reads select them as hex (events/rowToEvent.ts). */
  prev_hash: Uint8Array;
  hash: Uint8Array;
  tx_id: Generated<string>;
}

export interface StreamsTable {
  /** The run the stream belongs to (migration 0016): heads are looked up by (run_id, stream_id). */
  run_id: string;
  stream_id: string;
  version: number;
  /** 32 bytes since migration 0018. */
  last_hash: Uint8Array;
}

export interface CheckpointsTable {
  subscription_id: string;
  tx_id: string;
  position: string;
  updated_at: ColumnType<Date, string | undefined, string>;
  /** Who may advance this checkpoint, until when (events/checkpointLease.ts); null: anyone. */
  lease_owner: ColumnType<string | null, string | null | undefined, string | null>;
  lease_expires_at: ColumnType<Date | null, string | null | undefined, string | null>;
}

/** queued, running (a lease was taken; alive or not), interrupted, or final. */
export type RunRowStatus = "queued" | "running" | "interrupted" | "settled" | "failed" | "cancelled";

export interface RunsTable {
  run_id: string;
  main_executor_id: string;
  question: string;
  options: ColumnType<unknown, string | undefined, string>;
  state: "submitted" | "running" | "interrupted" | "finished";
  /** Kept by a trigger from `state` (migration 0011): what the API filters runs by. */
  status: ColumnType<RunRowStatus, never, never>;
  lease_owner: string | null;
  lease_expires_at: ColumnType<Date | null, string | null | undefined, string | null>;
  /** When the lease was last taken or renewed (the owner's heartbeat). */
  lease_renewed_at: ColumnType<Date | null, string | null | undefined, string | null>;
  epoch: ColumnType<string, string | number | undefined, string | number>;
  created_at: ColumnType<Date, string | undefined, never>;
  tenant: string | null;
  /** The API key that submitted the run (migration 0012); null from the command line. */
  key_id: string | null;
  /** The submitter's string map (migration 0015), also in the run_submitted fact; `{}` when none. */
  metadata: ColumnType<Record<string, string>, string | undefined, string>;
}

export interface ApiKeysTable {
  key_id: string;
  secret_sha256: string;
  tenant: string;
  role: string;
  created_at: ColumnType<Date, string | undefined, never>;
  revoked_at: ColumnType<Date | null, string | null | undefined, string | null>;
}

export interface IdempotencyKeysTable {
  tenant: string;
  idempotency_key: string;
  request_sha256: string;
  run_id: string | null;
  created_at: ColumnType<Date, string | undefined, never>;
}

/** Write-once, content-addressed bytes of sources and artifacts (migration 0010): sources/ reads them through db/sourceBlobs.ts. */
export interface SourceBlobsTable {
  sha256: string;
  bytes: Uint8Array;
  size: number;
  created_at: ColumnType<Date, string | undefined, never>;
}

export interface Schema {
  ariadne_events: EventsTable;
  ariadne_streams: StreamsTable;
  ariadne_checkpoints: CheckpointsTable;
  ariadne_runs: RunsTable;
  ariadne_api_keys: ApiKeysTable;
  ariadne_idempotency_keys: IdempotencyKeysTable;
  ariadne_source_blobs: SourceBlobsTable;
}
