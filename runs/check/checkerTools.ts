import { z } from "zod";
import { type CheckResult, type Reread, checkAnswer, sourceKey } from "../../checker/checkAnswer.ts";
import type { EventStore } from "../../events/index.ts";
import { type Tool, ToolError, defineTool } from "../../tools/index.ts";
import { type AnswerToCheck, answerToCheck } from "./answerToCheck.ts";
import { type SourceReaders, rereadSources } from "./rereadSources.ts";

/** How the check tools reach the run they check: its log and the readers its sources are read again with. */
export interface CheckerToolDeps {
  store: EventStore;
  readers(runId: string): Promise<SourceReaders>;
}

const NoInput = z.object({});

/** A source read again, as the reread_sources output records it: the text read is a blob, named by its hash. */
export interface RecordedReread extends Omit<Reread, "currentText"> {
  currentTextSha256: string | null;
}

/**
 * The Checker's tools (actors/request/roles.ts CHECK_TOOLS): each a deterministic part of
 * checker/checkAnswer.ts over the run's answer, so the Checker's verdicts rest on
 * outputs recorded in its stream. Without deps (a host reading transcripts) they
 * keep their specs and refuse to run.
 */
export function createCheckerTools(deps?: CheckerToolDeps): Tool[] {
  const answer = async (runId: string): Promise<{ input: AnswerToCheck; readers: SourceReaders }> => {
    if (!deps) throw new ToolError("this host checks no runs: the check tools run only where the run is hosted");
    const readers = await deps.readers(runId);
    return { input: await answerToCheck(deps.store, readers.blobs, runId), readers };
  };
  // Checks that need no source read again: the verdicts' other parts do not depend on the rereads.
  const offline = async (runId: string): Promise<CheckResult> => checkAnswer({ ...(await answer(runId)).input, rereads: new Map() });
  return [
    defineTool({
      name: "check_numbers",
      description: "Every number of each claim (and of the answer's summary and headings) against the stored text of the sources and artifacts it cites (1,200 = 1200 = 1.2k; 12% = 0.12).",
      input: NoInput,
      effect: "read_only",
      run: async (_input, ctx) => {
        const r = await offline(ctx.runId);
        return JSON.stringify({
          claims: r.claims.map((c) => ({ claim_id: c.claimId, numbers: c.numbers, unsupported_numbers: c.unsupportedNumbers, flagged: c.unsupportedNumbers.length > 0 })),
          summary: { numbers: r.summary.numbers, unsupported_numbers: r.summary.unsupportedNumbers },
        });
      },
    }),
    defineTool({
      name: "reread_sources",
      description: "Each source the answer cites read again (fetched, or reopened when local) and its hash compared with the recorded one: unchanged, still_supports, no_longer_supports, unreachable or not_reread; with the claims citing it.",
      input: NoInput,
      effect: "read_only",
      capabilities: ["network"],
      run: async (_input, ctx) => {
        const { input, readers } = await answer(ctx.runId);
        const rereads = await rereadSources(ctx.runId, input.claims, readers);
        const r = checkAnswer({ ...input, rereads });
        const recorded = new Map<string, RecordedReread>();
        for (const [key, { currentText, ...rest }] of rereads) {
          // What was read is kept by its hash, so the verdict that rests on it can be derived again from the log.
          const currentTextSha256 = currentText === null ? null : await readers.blobs.put(new TextEncoder().encode(currentText));
          recorded.set(key, { ...rest, currentTextSha256 });
        }
        return JSON.stringify({
          sources: r.sources.map((s, i) => ({
            source: i,
            url: s.url,
            state: s.state,
            ...(s.detail && { detail: s.detail }),
            claims: r.claims.filter((c) => c.sources.includes(i)).map((c) => c.claimId),
            reread: recorded.get(sourceKey(s.url, s.recordedRawSha256)) ?? null,
          })),
        });
      },
    }),
    defineTool({
      name: "check_advice",
      description: "The advice-language classifier over the answer's sentences: buy/sell recommendations, price targets, position advice; where each was found (a claim id, the summary, a heading).",
      input: NoInput,
      effect: "read_only",
      run: async (_input, ctx) => JSON.stringify({ advice: (await offline(ctx.runId)).advice }),
    }),
    defineTool({
      name: "find_unevidenced_claims",
      description: "The claims without evidence: judgments, not collected, or observed claims whose findings quote nothing.",
      input: NoInput,
      effect: "read_only",
      run: async (_input, ctx) => {
        const r = await offline(ctx.runId);
        return JSON.stringify({
          claims: r.claims.filter((c) => c.notes.some((n) => n.startsWith("no evidence"))).map((c) => ({ claim_id: c.claimId, basis: c.basis, why: c.notes.find((n) => n.startsWith("no evidence")) })),
        });
      },
    }),
  ];
}
