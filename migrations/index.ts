import type { Migration, MigrationProvider } from "kysely";
import * as eventLog from "./0001_event_log.ts";
import * as appendV2 from "./0002_append_v2.ts";
import * as streamHeadsGuarded from "./0003_stream_heads_guarded.ts";
import * as runBudgets from "./0004_run_budgets.ts";
import * as runsLeases from "./0006_runs_leases.ts";
import * as httpApi from "./0007_http_api.ts";
import * as budgetFencing from "./0008_budget_fencing.ts";
import * as appendBatch from "./0009_append_batch.ts";
import * as sourceBlobs from "./0010_source_blobs.ts";
import * as runStatus from "./0011_run_status.ts";
import * as runSubmitter from "./0012_run_submitter.ts";
import * as leaseHeartbeat from "./0013_lease_heartbeat.ts";
import * as budgetOps from "./0014_budget_ops.ts";
import * as runMetadata from "./0015_run_metadata.ts";
import * as runKeyedStreams from "./0016_run_keyed_streams.ts";
import * as checkpointLeases from "./0017_checkpoint_leases.ts";
import * as compactEvents from "./0018_compact_events.ts";
import * as runSummaries from "./0019_run_summaries.ts";

/**
 * Migrations are listed in code rather than read from disk, so the same
 * provider works on Node, Deno and in bundles. Names sort in apply order.
 */
export const migrations: Record<string, Migration> = {
  "0001_event_log": eventLog,
  "0002_append_v2": appendV2,
  "0003_stream_heads_guarded": streamHeadsGuarded,
  "0004_run_budgets": runBudgets,
  "0006_runs_leases": runsLeases,
  "0007_http_api": httpApi,
  "0008_budget_fencing": budgetFencing,
  "0009_append_batch": appendBatch,
  "0010_source_blobs": sourceBlobs,
  "0011_run_status": runStatus,
  "0012_run_submitter": runSubmitter,
  "0013_lease_heartbeat": leaseHeartbeat,
  "0014_budget_ops": budgetOps,
  "0015_run_metadata": runMetadata,
  "0016_run_keyed_streams": runKeyedStreams,
  "0017_checkpoint_leases": checkpointLeases,
  "0018_compact_events": compactEvents,
  "0019_run_summaries": runSummaries,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
