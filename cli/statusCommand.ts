import { openStore } from "../events/openStore.ts";
import { type ExecutorNode, type LeaseStatus, runStatus } from "../runs/index.ts";
import type { Invocation } from "./command.ts";
import { followInStatus } from "./followInStatus.ts";

/** `ariadne status RUN [--follow]`. */
export async function statusCommand({ flags, positionals, out, storeOptions, terminal }: Invocation): Promise<number> {
  const [runId] = positionals as [string];
  const json = flags.bool("json");
  const { database, store, close } = await openStore({ ...storeOptions, readOnly: true });
  try {
    if (flags.bool("follow")) {
      const followed = await followInStatus({ database, runId, out, json, terminal });
      if (followed === "aborted") return 130;
      if (followed === "shown") return 0;
    }
    const s = await runStatus(database, store, runId);
    if (json) {
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
