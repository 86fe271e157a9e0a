import type { RecordedEvent } from "../events/index.ts";
import { runProjection } from "../projections/index.ts";
import { formatTokens } from "./formatTokens.ts";

/**
 * One line per step that matters while a run works, so a person watching knows
 * which executor is doing what. Executors are named main, or child:<profile>#<n>.
 * Who an executor is and where it stands (name, role, profile, turn) come from
 * the run's projections, folded here from the events as they are recorded.
 */
export function progressPrinter(out: (line: string) => void, startedAt = Date.now()) {
  let run = runProjection.initial();
  // Names are given once, in the order executors appear here, and never change mid-run: concurrent
  // admissions can commit in another order than they arrive, which would renumber a live executor.
  const names = new Map<string, string>();
  let children = 0;
  const name = (id: string) => names.get(id) ?? id.slice(0, 8);
  const stamp = () => `[${((Date.now() - startedAt) / 1000).toFixed(2)}s]`.padEnd(9);

  return (e: RecordedEvent) => {
    run = runProjection.evolve(run, e);
    const who = e.metadata.executorId;
    const me = run.progress.executors[who];
    if (e.type === "executor_admitted" && me && !names.has(who)) {
      names.set(who, me.role === "main" ? "main" : `${me.role}:${me.profile?.id ?? "general"}#${++children}`);
    }
    const line = (text: string) => out(`${stamp()} ${name(who).padEnd(26)} ${text}`);
    switch (e.type) {
      case "executor_admitted":
        return line(
          me?.role === "main"
            ? `admitted; tools: ${e.data.grantedTools.join(", ")}`
            : `admitted (${me?.profile?.id} v${me?.profile?.version}); tools: ${e.data.grantedTools.join(", ")}; task: ${me?.question}`,
        );
      case "turn": {
        const uses = e.data.response.content.filter((b) => b.type === "tool_use").map((b) => (b as { name: string }).name);
        const label = e.data.scripted ? "scripted" : e.data.model;
        return line(`turn ${me?.turn ?? e.data.turn} (${label}, ${formatTokens(e.data.usage, e.data.scripted)})${uses.length ? ` -> ${uses.join(", ")}` : ""}`);
      }
      case "turn_failed":
        return line(`turn ${e.data.turn} failed (${e.data.kind}): ${e.data.message}`);
      case "tool_completed":
        return line(`${e.data.tool} done (${e.data.output.length} chars)`);
      case "tool_failed":
        return line(`${e.data.tool} refused/failed (${e.data.reason}): ${e.data.message.slice(0, 160)}`);
      case "effect_unknown":
        return line(`${e.data.tool}: outcome unknown, not re-run`);
      case "handoff_committed": {
        const h = e.data.handoff as { findings?: unknown[]; executionState?: string; confidence?: string };
        return line(`handoff: ${h.findings?.length ?? 0} findings, ${h.executionState}, confidence ${h.confidence}${e.data.forced ? " (forced partial)" : ""}`);
      }
      case "handoff_consumed":
        return line(`received the handoff of ${name(e.data.childExecutorId)}`);
      case "settled":
        return e.data.outcome === "answered" ? line("answered") : undefined;
      case "cancelled":
        return line(`cancelled: ${e.data.reason}`);
      case "failed":
        return line(`failed: ${e.data.reason}`);
    }
  };
}
