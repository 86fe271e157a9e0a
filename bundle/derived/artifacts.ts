import { type BundleRun, type DerivedFile, ofType, safeName } from "../bundleRun.ts";

/**
 * artifacts/<executor>/<path>: each artifact a tool published, its bytes the
 * blob it names. The path is the recorded one with `.` and `..` dropped, so no
 * artifact lands outside its folder. A missing blob is left out here and named
 * by the blob check.
 */
export function writeArtifacts(run: BundleRun): DerivedFile[] {
  const files = new Map<string, DerivedFile>();
  for (const e of ofType(run.events, "tool_completed")) {
    for (const a of e.data.artifacts) {
      const bytes = run.blob(a.sha256);
      if (!bytes) continue;
      const parts = a.path.split(/[\\/]+/).filter((p) => p !== "" && p !== "." && p !== "..");
      const path = `artifacts/${safeName(e.metadata.executorId)}/${parts.length ? parts.join("/") : safeName(a.id)}`;
      files.set(path, { path, bytes });
    }
  }
  return [...files.values()];
}
