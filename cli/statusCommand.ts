import { openStore } from "../events/openStore.ts";
import { type ExecutorNode, type LeaseStatus, runStatus } from "../runs/index.ts";
import { type AriadneConfig, storeOptionsOf } from "./config.ts";
import { followInStatus } from "./followInStatus.ts";
import type { LiveTerminal } from "./live/liveTerminal.ts";
import { parseCommand } from "./parseCommand.ts";
import { UsageError } from "./usage.ts";

const USAGE = `usage: ariadne status RUN [--json] [--follow]

Prints a run's state (submitted, running, settled, failed, cancelled, interrupted),
its lease and its executor tree. --json prints one object for scripts:
{runId, state, question, lease: {owner, epoch, expiresInMs, expiresAt, heartbeatAgeMs, ownerGone},
executors: {executorId, role, profile, task, state, turns, unknownEffects, children}, events}.

--follow follows the run, wherever it is hosted (this host, a worker, a server), until it
stops (settled, failed, cancelled, or interrupted and waiting for ariadne resume), then prints
the status as above. On a terminal the executor tree is drawn in place (state, turn, tool in
flight, tokens, the run's budget bar; a queued run shows how long it has waited for a worker)
and ends with the answer; otherwise a line per step, as ariadne run prints them; with --json
only the final object. Exit code as without --follow: 0 once the run stops, whatever its state;
1 for an unknown run; 130 when Ctrl-C stops the following (the run goes on).

options:
  --json             one JSON object
  --follow           follow the run until it stops
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** `ariadne status RUN [--follow]`. */
export async function statusCommand(argv: string[], out: (line: string) => void, config: AriadneConfig, terminal: LiveTerminal | null = null): Promise<number> {
  const { values, positionals } = parseCommand(argv, { json: { type: "boolean", default: false }, follow: { type: "boolean", default: false } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new UsageError(`status takes exactly one run id (ariadne status --help for usage)`);
  const { database, store, close } = await openStore(storeOptionsOf(config, values["data-dir"]));
  try {
    if (values.follow) {
      const followed = await followInStatus({ database, runId, out, json: values.json, terminal });
      if (followed === "aborted") return 130;
      if (followed === "shown") return 0;
    }
    const s = await runStatus(database, store, runId);
    if (values.json) {
      out(JSON.stringify(s));
      return 0;
    }
    out(`run ${s.runId}: ${s.state} · ${s.events} events`);
    out(`question: ${s.question}`);
    if (s.lease) out(leaseLine(s.runId, s.lease));
    if (s.executors) for (const line of tree(s.executors, "")) out(line);
    return 0;
  } finally {
    await close();
  }
}

/** The lease with what tells a live owner from a dead one: its expiry, the heartbeat's age, a gone process. */
function leaseLine(runId: string, lease: LeaseStatus): string {
  const s = (ms: number) => Math.round(Math.abs(ms) / 1000);
  const left = lease.expiresInMs ?? 0;
  const parts = [left >= 0 ? `expires in ${s(left)} s` : `expired ${s(left)} s ago`];
  if (lease.heartbeatAgeMs !== null) parts.push(`last heartbeat ${s(lease.heartbeatAgeMs)} s ago`);
  if (lease.ownerGone) parts.push(`its process is gone (this host): ariadne resume ${runId} takes the run over now`);
  return `lease: ${lease.owner} (epoch ${lease.epoch}): ${parts.join("; ")}`;
}

function tree(n: ExecutorNode, indent: string): string[] {
  const label = n.role === "main" ? "main" : `${n.role === "checker" ? "checker" : "child"}:${n.profile ?? "general"}`;
  const unknown = n.unknownEffects ? `, ${n.unknownEffects} unknown effect(s)` : "";
  return [`${indent}${label} ${n.executorId} ${n.state} (${n.turns} turns${unknown})`, ...n.children.flatMap((c) => tree(c, `${indent}  `))];
}
