import { openStore } from "../db/index.ts";
import { type ExecutorNode, runStatus } from "../runs/index.ts";
import { parseCommand, storeOptionsOf } from "./parseCommand.ts";

const USAGE = `usage: ariadne status RUN [--json]

Prints a run's state (submitted, running, settled, failed, cancelled, interrupted),
its lease and its executor tree. --json prints one object for scripts:
{runId, state, question, lease, executors: {executorId, role, profile, task, state, turns, unknownEffects, children}, events}.

options:
  --json             one JSON object
  --data-dir DIR     embedded store directory when DATABASE_URL is unset`;

/** `ariadne status RUN`. */
export async function statusCommand(argv: string[], out: (line: string) => void, env = process.env): Promise<number> {
  const { values, positionals } = parseCommand(argv, { json: { type: "boolean", default: false } }, USAGE);
  if (values.help) return (out(USAGE), 0);
  const [runId] = positionals;
  if (!runId || positionals.length > 1) throw new Error(`status takes exactly one run id\n\n${USAGE}`);
  const { database, store, close } = await openStore(storeOptionsOf(env, values["data-dir"]));
  try {
    const s = await runStatus(database, store, runId);
    if (values.json) {
      out(JSON.stringify(s));
      return 0;
    }
    out(`run ${s.runId}: ${s.state} · ${s.events} events`);
    out(`question: ${s.question}`);
    if (s.lease) out(`lease: ${s.lease.owner} (epoch ${s.lease.epoch}, ${Math.round((s.lease.expiresInMs ?? 0) / 1000)} s left)`);
    if (s.executors) for (const line of tree(s.executors, "")) out(line);
    return 0;
  } finally {
    await close();
  }
}

function tree(n: ExecutorNode, indent: string): string[] {
  const label = n.role === "main" ? "main" : `child:${n.profile ?? "general"}`;
  const unknown = n.unknownEffects ? `, ${n.unknownEffects} unknown effect(s)` : "";
  return [`${indent}${label} ${n.executorId} ${n.state} (${n.turns} turns${unknown})`, ...n.children.flatMap((c) => tree(c, `${indent}  `))];
}
