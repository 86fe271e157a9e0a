/**
 * One error base with a stable code and an HTTP status, so every layer (store,
 * runtime, HTTP) speaks the same language about what went wrong.
 */
export class AriadneError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}

export interface IssueDetail {
  /** Path into the offending value, e.g. ["events", 0, "data", "turn"]. */
  path: (string | number)[];
  message: string;
}

/** Input that does not match its schema. Nothing was written. */
export class ValidationError extends AriadneError {
  readonly issues: IssueDetail[];
  constructor(message: string, issues: IssueDetail[]) {
    super("VALIDATION", 400, `${message}: ${formatIssues(issues)}`);
    this.issues = issues;
  }
}

/** A stale expected version. Nothing was written. */
export class ConcurrencyError extends AriadneError {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: number,
    readonly actualVersion: number,
  ) {
    super(
      "CONCURRENCY",
      412,
      `stream ${streamId} is at version ${actualVersion}, expected ${expectedVersion}; reload the stream and decide again`,
    );
  }
}

/**
 * An append inside a transaction that wrote before it: its events could be
 * delivered ahead of a younger writer's. Nothing was written; retry the whole
 * transaction, appending before any other write.
 */
export class TransactionOrderError extends AriadneError {
  constructor(readonly streamId: string, options?: { cause?: unknown }) {
    super(
      "TRANSACTION_ORDER",
      409,
      `append to ${streamId} refused: the enclosing transaction wrote before appending and a younger transaction appended since; retry it, appending first`,
      options,
    );
  }
}

/**
 * An append by a writer whose lease epoch is no longer the run's: another
 * owner took the run over. Nothing was written; this writer must stop.
 */
export class FencedError extends AriadneError {
  constructor(
    readonly runId: string,
    readonly epoch: number,
    readonly currentEpoch: number | null,
    options?: { cause?: unknown },
  ) {
    super(
      "FENCED",
      409,
      `run ${runId} was taken over (epoch ${currentEpoch ?? "none"}, this writer holds ${epoch}); stop writing and leave the run to its owner`,
      options,
    );
  }
}

export class NotFoundError extends AriadneError {
  constructor(message: string) {
    super("NOT_FOUND", 404, message);
  }
}

/** Configuration or environment that cannot work (unreachable database, bad URL, missing key). */
export class ConfigError extends AriadneError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("CONFIG", 500, message, options);
  }
}

/** The store's files cannot be read back whole: reported as damage, never half-read. */
export class DamagedStoreError extends AriadneError {
  constructor(location: string, detail: string, options?: { cause?: unknown }) {
    super("DAMAGED_STORE", 500, `damaged store at ${location}: ${detail}`, options);
  }
}

export const isAriadneError = (e: unknown): e is AriadneError => e instanceof AriadneError;
export const isConcurrencyError = (e: unknown): e is ConcurrencyError => e instanceof ConcurrencyError;
export const isFencedError = (e: unknown): e is FencedError => e instanceof FencedError;
export const isValidationError = (e: unknown): e is ValidationError => e instanceof ValidationError;

export function formatIssues(issues: IssueDetail[]): string {
  return issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`).join("; ");
}

/** The one way zod issues are told, everywhere: `path: message; …`, `(root)` for the value itself. */
export function formatZodIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, prefix: (string | number)[] = []): string {
  return formatIssues(fromZodIssues(issues, prefix));
}

/** Converts zod issues (which carry PropertyKey paths) into our plain detail shape, under a prefix. */
export function fromZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
  prefix: (string | number)[] = [],
): IssueDetail[] {
  return issues.map((i) => ({
    path: [...prefix, ...i.path.map((p) => (typeof p === "number" ? p : String(p)))],
    message: i.message,
  }));
}
