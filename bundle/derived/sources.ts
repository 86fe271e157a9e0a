import { canonicalJson } from "../../core/canonicalJson.ts";
import { type BundleRun, type DerivedFile, textFile } from "../bundleRun.ts";

/** sources.jsonl: every URL or document a tool read, one line per read, in log order, with its time and content hashes. */
export function writeSources(run: BundleRun): DerivedFile[] {
  const lines = run.events.flatMap((e) => {
    if (e.type === "tool_completed") return (e.data.sources ?? []).map((s) => canonicalJson({ executorId: e.metadata.executorId, toolUseId: e.data.toolUseId, tool: e.data.tool, eventId: e.eventId, ...s })!);
    // A server-side search (ARIADNE_SEARCH=anthropic) is recorded with its turn.
    if (e.type === "turn") return (e.data.searches ?? []).flatMap(({ toolUseId, source: s }) => (s ? [canonicalJson({ executorId: e.metadata.executorId, toolUseId, tool: "web_search", eventId: e.eventId, ...s })!] : []));
    return [];
  });
  return [textFile("sources.jsonl", lines.map((l) => `${l}\n`).join(""))];
}
