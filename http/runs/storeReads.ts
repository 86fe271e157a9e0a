import { Runtime } from "../../actors/index.ts";
import type { Transcript } from "../../actors/index.ts";
import { streamIdOf } from "../../actors/index.ts";
import type { EventStore, RecordedEvent, VerifyResult } from "../../events/index.ts";
import { ScriptedModel } from "../../models/index.ts";
import { ToolRegistry, createCorpusTools } from "../../tools/index.ts";

/** What http/ reads besides run views: an executor's events and transcript, and a run's chains. */
export interface RunReads {
  executorEvents(executorId: string): Promise<RecordedEvent[]>;
  transcript(executorId: string): Promise<Transcript>;
  verifyRun(runId: string): Promise<{ runId: string; ok: boolean; streams: VerifyResult[] }>;
}

export function createStoreReads(store: EventStore, options: { profilesDir?: string } = {}): RunReads {
  // Transcripts are rebuilt by the Runtime (it knows each executor's tools and profile); it calls no model here.
  const idle = new ScriptedModel({ name: "transcript-reader", script: [] });
  const runtime = new Runtime({
    store,
    models: { main: idle, child: idle },
    modelNames: { main: "none", child: "none" },
    tools: new ToolRegistry().register(...createCorpusTools()),
    profilesDir: options.profilesDir,
  });
  return {
    executorEvents: (executorId) => store.readStream(streamIdOf(executorId)),
    transcript: (executorId) => runtime.transcript(executorId),
    // INTERIM: verifies each stream of the run; replaced at merge by events/verifyRun.ts (run-level verify).
    async verifyRun(runId) {
      const streamIds = [...new Set((await store.readRun(runId)).map((e) => e.streamId))];
      const streams = await Promise.all(streamIds.map((s) => store.verify(s)));
      return { runId, ok: streams.length > 0 && streams.every((s) => s.ok), streams };
    },
  };
}
