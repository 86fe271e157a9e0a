import type { RecordedEvent } from "../events/index.ts";
import { isTableArtifact } from "./checkArtifacts.ts";

/** A CSV or JSON artifact a run published, and the blobs of what it was derived from. */
export interface PublishedArtifactRef {
  id: string;
  path: string;
  sha256: string;
  derivedFrom: string[];
}

type Completed = RecordedEvent<"tool_completed">;
const isStdout = (path: string) => /(?:^|\/)stdout\.txt$/.test(path);

/**
 * The CSV and JSON artifacts the run's executors published (publish_artifact) or handed on in a handoff, each with the blobs it was
 * derived from: a file a compute run wrote, that run's printed output; a file an executor wrote itself (a
 * table of its Children's results), every compute run's printed output in the run and the text of the
 * sources that executor read. Pure, over the run's events.
 */
export function publishedArtifacts(events: readonly RecordedEvent[]): PublishedArtifactRef[] {
  const completed = events.filter((e): e is Completed => e.type === "tool_completed");
  const computes = completed.filter((e) => e.data.tool === "compute");
  const stdoutOf = (e: Completed) => (e.data.artifacts ?? []).filter((a) => isStdout(a.path)).map((a) => a.sha256);
  const allStdout = computes.flatMap(stdoutOf);
  const out = new Map<string, PublishedArtifactRef>();
  // What was handed on: files published with publish_artifact, and artifacts a Child's handoff names.
  const handedOn: { e: RecordedEvent; artifacts: readonly { id: string; path: string; sha256: string }[] }[] = [
    ...completed.filter((e) => e.data.tool === "publish_artifact").map((e) => ({ e, artifacts: e.data.artifacts ?? [] })),
    ...events
      .filter((e): e is RecordedEvent<"handoff_committed"> => e.type === "handoff_committed")
      .map((e) => ({ e, artifacts: Array.isArray(e.data.handoff?.artifacts) ? (e.data.handoff.artifacts as { id: string; path: string; sha256: string }[]) : [] })),
  ];
  for (const { e, artifacts } of handedOn) {
    for (const a of artifacts) {
      if (!isTableArtifact(a.path) || out.has(a.id)) continue;
      const computed = computes.find((c) => (c.data.artifacts ?? []).some((x) => x.sha256 === a.sha256 && !isStdout(x.path)));
      const readBy = completed
        .filter((c) => c.metadata.executorId === e.metadata.executorId && c.data.tool !== "publish_artifact")
        .flatMap((c) => ("sources" in c.data ? (c.data.sources ?? []) : []).map((s) => s.textSha256));
      const derivedFrom = computed ? stdoutOf(computed) : [...new Set([...allStdout, ...readBy])];
      out.set(a.id, { id: a.id, path: a.path, sha256: a.sha256, derivedFrom });
    }
  }
  return [...out.values()];
}
