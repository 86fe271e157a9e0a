import { randomId } from "../core/clock.ts";
import { openStore } from "../db/index.ts";
import type { OpenOptions } from "../db/index.ts";

/** A small demo of the log: appends a run's events, reads them back and verifies the chain. */
export async function runDemo(options: OpenOptions & { question?: string; json: boolean; out: (l: string) => void }) {
  const { store, database, close } = await openStore(options);
  try {
    const runId = randomId();
    const executorId = randomId();
    const stream = `executor-${executorId}`;
    const metadata = { runId, executorId };
    await store.append(stream, 0, [
      {
        type: "executor_admitted",
        data: {
          role: "main",
          parentExecutorId: null,
          parentToolUseId: null,
          depth: 0,
          task: { question: options.question ?? "What does the event log record?", context: "", doneWhen: "" },
          profile: null,
          grantedTools: [],
          refusedTools: [],
          model: "scripted:demo",
          limits: { maxTurns: 1, maxToolCalls: 1, maxHandoffRepairs: 0 },
        },
        metadata,
      },
      { type: "settled", data: { outcome: "answered" }, metadata },
    ]);
    const events = await store.readRun(runId);
    const verified = await store.verify(stream);
    if (options.json) options.out(JSON.stringify({ runId, store: database.location, events, verified }));
    else {
      options.out(`store: ${database.location}`);
      for (const e of events) options.out(`#${e.globalPosition} ${e.streamId} v${e.streamVersion} ${e.type} ${e.hash.slice(0, 12)}`);
      options.out(`chain: ${verified.ok ? "intact" : "BROKEN"} · run ${runId}`);
    }
    return 0;
  } finally {
    await close();
  }
}
