import { DEFAULT_LEASE_MS, MIN_LEASE_MS } from "../runs/host/workerOptionProblem.ts";

/**
 * The bounds of the command line's numbers, each shared by a flag and the variable it stands for. Outside
 * them a value is refused (one line, exit 2) before anything is opened: a lease of 10^15 ms overflowed the
 * heartbeat's timer into a write loop, a poll of 0 ms made an idle worker run thousands of transactions a
 * second, and no machine hosts a billion runs at once.
 */
const ONE_DAY_MS = 86_400_000;

/** A lease's time to live: at least MIN_LEASE_MS (the heartbeat renews at a third of it), at most a day. */
export const LEASE_MS = { type: "integer", min: MIN_LEASE_MS, max: ONE_DAY_MS, unit: " ms" } as const;
export { DEFAULT_LEASE_MS };

/** How often a worker looks for expired leases: at least 50 ms (below, an idle worker is a busy loop), at most an hour. */
export const POLL_MS = { type: "integer", min: 50, max: 3_600_000, unit: " ms" } as const;

/** Runs one worker or server hosts at once. The capacity bench has hosted 100 runs (400 live Children) in one process. */
export const CONCURRENCY = { type: "integer", min: 1, max: 1_000 } as const;

/** Waits a command may be asked for (another owner's lease, an idle worker's exit): at most a day. */
export const WAIT_MS = { type: "integer", min: 0, max: ONE_DAY_MS, unit: " ms" } as const;

/** Silence on a model stream that counts as a dead connection, in ms: more than 0, at most an hour. */
export const MODEL_IDLE_TIMEOUT_MS = { type: "integer", min: 1, max: 3_600_000, unit: " ms" } as const;

/** The delay of each scripted reply (demos, interrupt tests): at most ten minutes. */
export const SCRIPTED_LATENCY_MS = { type: "integer", min: 0, max: 600_000, unit: " ms" } as const;

/** A TCP port. */
export const PORT = { type: "integer", min: 0, max: 65_535, expects: "a port number" } as const;

/** Trials of a live eval case. */
export const TRIALS = { type: "integer", min: 1, max: 100 } as const;

/** How long a command waits for an unreachable PostgreSQL before giving up (0: not at all), at most a day. */
export const DATABASE_WAIT_MS = { type: "integer", min: 0, max: ONE_DAY_MS, unit: " ms" } as const;

/** A per-key or per-tenant cap of `serve` (live streams, queued runs): at least 1. */
export const SERVE_CAP = { type: "integer", min: 1, max: 1_000_000 } as const;

/** compute's wall-clock limit: at least a second, at most an hour. */
export const COMPUTE_TIME_MS = { type: "integer", min: 1_000, max: 3_600_000, unit: " ms" } as const;

/** compute's memory, workspace and /tmp sizes: at least 16 MB (Python and Deno start in less), at most 1 TB. */
export const COMPUTE_MB = { type: "integer", min: 16, max: 1_048_576, unit: " MB" } as const;

/** compute's processes (threads count; bwrap and the interpreter take a few) and open files per process. */
export const COMPUTE_PROCESSES = { type: "integer", min: 4, max: 65_536 } as const;
export const COMPUTE_OPEN_FILES = { type: "integer", min: 16, max: 1_048_576 } as const;

/** Files and folders one compute call may make in the workspace, and in its /tmp. */
export const COMPUTE_WORKSPACE_FILES = { type: "integer", min: 16, max: 10_000_000 } as const;

/** The least time between two requests to one web host (tools/web/hostGate.ts): at most a minute, or no site is read in a run's time. */
export const FETCH_INTERVAL_MS = { type: "integer", min: 0, max: 60_000, unit: " ms" } as const;
