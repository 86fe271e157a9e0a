/**
 * Named crash points for fault tests. `ARIADNE_CRASH_AT=name[:nth]` arms one:
 * the nth time (default 1) the process passes that point, it kills itself with
 * SIGKILL, as a power cut would. Unset, every call is a cheap no-op. The
 * process's configuration (cli/config.ts) arms it with armCrashPoint.
 *
 * Names: `after_commit:<event type>` (in the store, after the append's commit),
 * `after_effect:<tool>` (a test tool, between its effect and the outcome),
 * `during:lease_takeover` (inside the takeover transaction), `during:budget_reservation`
 * (a reservation committed in the ledger, before the model call and any event).
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

function parse(spec: string | undefined): { name: string; nth: number } | null {
  if (!spec) return null;
  const m = /^(.+?)(?::(\d+))?$/.exec(spec);
  if (!m) return null;
  // Names contain a colon themselves (after_commit:turn); a trailing number is the count.
  return { name: m[1], nth: m[2] ? Number(m[2]) : 1 };
}
