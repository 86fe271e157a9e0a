import { canonicalJson } from "../../core/canonicalJson.ts";
import { type BundleRun, type DerivedFile, ofType, textFile } from "../bundleRun.ts";

/** sources.jsonl: every URL or document a tool read, one line per read, in log order, with its time and content hashes. */
export function writeSources(run: BundleRun): DerivedFile[] {
  const lines = ofType(run.events, "tool_completed").flatMap((e) =>
    (e.data.sources ?? []).map((s) => canonicalJson({ executorId: e.metadata.executorId, toolUseId: e.data.toolUseId, tool: e.data.tool, eventId: e.eventId, ...s })!),
  );
  return [textFile("sources.jsonl", lines.map((l) => `${l}\n`).join(""))];
}
