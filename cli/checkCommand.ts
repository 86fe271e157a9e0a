import { writeFile } from "node:fs/promises";
import { renderCheckReport } from "../checker/checkReport.ts";
import type { OpenOptions } from "../db/index.ts";
import { openStore } from "../events/openStore.ts";
import { projectClaims } from "../projections/index.ts";
import { checkRun } from "../runs/checkRun.ts";
import { readersForRun } from "../runs/check/readersForRun.ts";
import { type HostSettings, runtimeFactory } from "../runs/host/runtimeFactory.ts";

/** `ariadne check`'s exit code for each verdict (docs/concepts/checker.md); 2 is bad usage. */
export const CHECK_EXIT = { supported: 0, flagged: 1, unsupported: 3, incomplete: 3 } as const;

/** `ariadne check RUN`: the checker's verdicts, recorded and written as check-report.md. */
export async function checkCommand(
  options: OpenOptions & { runId: string; outFile?: string; json: boolean; settings: HostSettings; out: (line: string) => void },
): Promise<number> {
  const { store, database, close } = await openStore(options);
  try {
    const readers = await readersForRun(database, store, options.runId, runtimeFactory(options.settings));
    const { result, recorded } = await checkRun(store, options.runId, readers);
    const claims = (await projectClaims(store, options.runId)).claims;
    const report = renderCheckReport({ runId: options.runId, checkedAt: recorded.recordedAt.toISOString(), eventId: recorded.eventId }, result, claims);
    const file = options.outFile ?? "check-report.md";
    await writeFile(file, report);
    if (options.json) options.out(JSON.stringify({ runId: options.runId, eventId: recorded.eventId, report: file, ...result }));
    else {
      const count = (v: string) => result.claims.filter((c) => c.verdict === v).length;
      options.out(
        `run ${options.runId}: ${result.verdict} · ${result.claims.length} claims: ${count("supported")} supported, ${count("flagged")} flagged, ${count("no_evidence")} without evidence · ${result.advice.length} advice sentences · ${result.sources.length} sources read again`,
      );
      for (const c of result.claims.filter((c) => c.verdict === "flagged")) options.out(`  ${c.claimId} flagged: ${c.notes.join("; ")}`);
      if (result.verdictReason) options.out(`  ${result.verdict}: ${result.verdictReason}`);
      for (const a of (result.artifacts ?? []).filter((a) => a.verdict === "flagged")) options.out(`  artifact ${a.path} flagged: ${a.notes.slice(0, 5).join("; ")}`);
      for (const q of result.summary.unfoundQuotes ?? []) options.out(`  summary quotes "${q}", which no cited source holds`);
      if (result.summary.unsupportedNumbers.length) options.out(`  summary: ${result.summary.unsupportedNumbers.join(", ")} in no cited source`);
      for (const a of result.advice) options.out(`  advice in ${a.where} (${a.rule}): ${a.sentence}`);
      options.out(`report written to ${file} (event ${recorded.eventId})`);
    }
    return CHECK_EXIT[result.verdict];
  } finally {
    await close();
  }
}
