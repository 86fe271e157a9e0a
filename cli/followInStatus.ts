import type { Database } from "../db/openDatabase.ts";
import { runView as projectedView } from "../projections/index.ts";
import { findRun, followRun } from "../runs/index.ts";
import { liveView } from "./live/liveView.ts";
import type { LiveTerminal } from "./live/liveTerminal.ts";
import { progressPrinter } from "./progress.ts";
import { handoffsOf, renderAnswer } from "./renderAnswer.ts";
import { renderUnknownEffects } from "./renderUnknownEffects.ts";
import { runView } from "./runView.ts";

export interface FollowInStatusOptions {
  database: Database;
  runId: string;
  out: (line: string) => void;
  json: boolean;
  terminal: LiveTerminal | null;
}

/**
 * `status RUN --follow`: follows the run until it stops. On a terminal the live
 * view is drawn in place and ends with the answer ("shown": nothing more to
 * print); otherwise each step is a line as `ariadne run` prints it (none with
 * --json), and the caller prints the status ("stopped"). Ctrl-C stops following,
 * not the run ("aborted").
 */
export async function followInStatus(o: FollowInStatusOptions): Promise<"shown" | "stopped" | "aborted"> {
  const row = await findRun(o.database, o.runId);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const view = o.terminal && !o.json ? liveView(o.terminal.stream, { color: o.terminal.color }) : null;
  try {
    if (view) view.log(`question: ${row.question}`);
    const printer = !view && !o.json ? progressPrinter(o.out) : null;
    const ended = await followRun({
      database: o.database,
      runId: o.runId,
      signal: stop.signal,
      onEvents: (events) => (view ? view.applyAll(events) : printer && events.forEach(printer)),
      onRow: (r) => view?.waitingOn(r.state === "submitted" ? "queued: waiting for a worker" : null),
    });
    view?.close();
    if (ended === "aborted") {
      console.error(`stopped following run ${o.runId}; the run goes on (ariadne status ${o.runId} --follow to follow it again)`);
      return "aborted";
    }
    if (!view) return "stopped";
    const shown = runView(projectedView(view.state.run));
    o.out("");
    if (shown.answer) for (const line of renderAnswer(shown.answer, handoffsOf(shown), shown.mainExecutorId)) o.out(line);
    else if (ended === "interrupted") o.out(`run ${o.runId} is interrupted: ariadne resume ${o.runId} finishes it`);
    else o.out(`run ${o.runId} ended without an answer (${shown.executors.find((x) => x.executorId === shown.mainExecutorId)?.status ?? "no Main executor"})`);
    for (const line of renderUnknownEffects(shown)) o.out(line);
    o.out(`run ${o.runId} · ${view.state.run.lifecycle.events} events · ariadne show ${o.runId} for the executor tree and handoffs`);
    return "shown";
  } finally {
    view?.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
