import { type CheckResult, checkAnswer, rawIsText } from "../checker/checkAnswer.ts";
import { AriadneError } from "../core/errors.ts";
import type { EventStore, RecordedEvent } from "../events/index.ts";
import { claimsOfEvents } from "../projections/claimChains.ts";
import type { RunClaims } from "../projections/claimTypes.ts";
import { appendRunFact } from "./appendRunFact.ts";
import { type SourceReaders, rereadSources } from "./rereadSources.ts";
import { readKnownRun } from "../events/readKnownRun.ts";

/** Every blob whose text a claim's numbers may be read from: quotes' blobs, sources' text, artifacts. */
export function textShas(claims: RunClaims): Set<string> {
  const shas = new Set<string>();
  for (const c of claims.claims) {
    for (const f of c.findings) {
      for (const t of f.toolCalls) {
        for (const s of t.sources) {
          shas.add(s.textSha256);
          if (rawIsText(s)) shas.add(s.rawSha256);
        }
        for (const a of t.artifacts) shas.add(a.sha256);
      }
      for (const q of f.quotes) {
        if (q.blob) shas.add(q.blob.sha256);
        if (q.source?.kind === "source") shas.add(q.source.textSha256);
        else if (q.source) shas.add(q.source.sha256);
      }
    }
  }
  return shas;
}

/** The stored texts of the given blobs, by sha256; a blob the store lacks is left out. */
export async function readTexts(blobs: SourceReaders["blobs"], shas: Iterable<string>): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const sha of shas) {
    const bytes = await blobs.get(sha);
    if (bytes) texts.set(sha, new TextDecoder().decode(bytes));
  }
  return texts;
}

/**
 * Checks a settled run's answer (checker/checkAnswer.ts) against the stored
 * texts of what it cites and its sources read again now, and records the
 * verdicts as `check_completed` in the run's stream. The run's executor
 * streams are not written: the seal, which covers them, still holds.
 */
export async function checkRun(store: EventStore, runId: string, readers: SourceReaders): Promise<{ result: CheckResult; recorded: RecordedEvent<"check_completed"> }> {
  const events = await readKnownRun(store, runId);
  const claims = claimsOfEvents(runId, events);
  const settled = claims.answer && events.find((e): e is RecordedEvent<"settled"> => e.eventId === claims.answer!.eventId);
  if (!claims.answer || !settled) throw new AriadneError("NO_ANSWER", 409, `run ${runId} has no answer to check: it has not settled with one`);
  const body = (settled.data.answer ?? {}) as { summary?: unknown; sections?: { heading?: unknown }[] };
  const texts = await readTexts(readers.blobs, textShas(claims));
  const result = checkAnswer({
    claims,
    summary: typeof body.summary === "string" ? body.summary : "",
    headings: Array.isArray(body.sections) ? body.sections.map((s) => String(s.heading ?? "")) : [],
    texts,
    rereads: await rereadSources(runId, claims, readers),
  });
  await appendRunFact(store, { runId, mainExecutorId: claims.answer.executorId }, { type: "check_completed", data: result });
  const recorded = (await store.readRun(runId)).findLast((e): e is RecordedEvent<"check_completed"> => e.type === "check_completed")!;
  return { result, recorded };
}
