/**
 * Named crash points for fault tests. `ARIADNE_CRASH_AT=name[:nth]` arms one:
 * the nth time (default 1) the process passes that point, it kills itself with
 * SIGKILL, as a power cut would. Unset, every call is a cheap no-op. The
 * process's configuration (cli/config.ts) arms it with armCrashPoint.
 *
 * Names:
 * - `before_commit:<event type>`: in the store, an append validated and about to
 *   be sent to the database (nothing of it written);
 * - `during_commit:<event type>`: the append's statement ran inside its
 *   transaction, and the process dies before the COMMIT (the server rolls back
 *   when the connection drops; PGlite, in process, dies with the transaction open);
 * - `after_commit:<event type>`: the append committed, before its caller hears of it;
 * - `after_effect:<tool>` (a test tool, between its effect and the outcome);
 * - `during:lease_takeover` (inside the takeover transaction);
 * - `during:budget_reservation` (a reservation committed in the ledger, before
 *   the model call and any event).
 */
let armed: { name: string; nth: number } | null = null;
let passes = 0;

/** Arms the crash point `spec` names (`name[:nth]`), from ARIADNE_CRASH_AT as cli/config.ts read it; undefined disarms. */
export function armCrashPoint(spec: string | undefined): void {
  armed = parse(spec);
  passes = 0;
}

export function crashPoint(name: string): void {
  if (!armed || armed.name !== name) return;
  if (++passes < armed.nth) return;
  process.kill(process.pid, "SIGKILL");
}

/**
 * Whether the armed point's name starts with the prefix: a null check when
 * nothing is armed, so a hot path asks on every pass and names points (or takes
 * a slower, crashable path) only in a process armed to crash there. Asked per
 * pass, not once at load, because the process arms its point after its modules load.
 */
export function crashPointArmed(prefix: string): boolean {
  return armed !== null && armed.name.startsWith(prefix);
}

function parse(spec: string | undefined): { name: string; nth: number } | null {
  if (!spec) return null;
  const m = /^(.+?)(?::(\d+))?$/.exec(spec);
  if (!m) return null;
  // Names contain a colon themselves (after_commit:turn); a trailing number is the count.
  return { name: m[1], nth: m[2] ? Number(m[2]) : 1 };
}
