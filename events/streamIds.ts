/** The run-level stream: facts about the run as a whole (its seal; leases and run state later). */
export const runStreamId = (runId: string) => `run-${runId}`;

/** Executor streams are `executor-<id>`; a run's root hash covers exactly these. */
export const EXECUTOR_STREAM_PREFIX = "executor-";
export const executorStreamId = (executorId: string) => `${EXECUTOR_STREAM_PREFIX}${executorId}`;
export const isExecutorStream = (streamId: string) => streamId.startsWith(EXECUTOR_STREAM_PREFIX);
