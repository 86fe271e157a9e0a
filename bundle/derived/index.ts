import type { BundleRun, DerivedFile } from "../bundleRun.ts";
import { writeAnswer } from "./answer.ts";
import { writeArtifacts } from "./artifacts.ts";
import { writeAuditPage } from "./audit.ts";
import { writeCheckReport } from "./checkReport.ts";
import { writeClaims } from "./claims.ts";
import { writeFindings } from "./findings.ts";
import { writePlan } from "./plan.ts";
import { writeRequest } from "./request.ts";
import { writeSources } from "./sources.ts";
import { writeTranscripts } from "./transcripts.ts";

/** Writes some of a bundle's derived files from its run alone: export writes them and verify re-derives them, byte for byte. */
export type DerivedWriter = (run: BundleRun) => DerivedFile[];

/**
 * Every derived file of a bundle comes from one of these. A new derived file
 * (check-report.md next) is one more writer here: export
 * writes it, the manifest lists it and verify fails when it drifts, with no
 * other change. A writer must be a pure function of the run's events and blobs.
 */
export const DERIVED_WRITERS: readonly DerivedWriter[] = [writeRequest, writePlan, writeFindings, writeSources, writeArtifacts, writeAnswer, writeClaims, writeTranscripts, writeCheckReport, writeAuditPage];

/** All derived files of a run, by path; two writers claiming one path is a programming error. */
export function deriveFiles(run: BundleRun, writers: readonly DerivedWriter[] = DERIVED_WRITERS): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const write of writers) {
    for (const f of write(run)) {
      if (files.has(f.path)) throw new Error(`two derived files at ${f.path}`);
      files.set(f.path, f.bytes);
    }
  }
  return files;
}
